"""`python -m kiln`: the system report (kiln/sysreport.py)."""
import sys

from .sysreport import main

sys.exit(main())
