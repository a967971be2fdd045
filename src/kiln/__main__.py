"""`python -m kiln`: the system report (kiln/sysreport.py); `python -m kiln cache`: the
entries of the on-disk cache (kiln/cpu/cachecli.py)."""
import sys

if sys.argv[1:2] == ["cache"]:
    from .cpu.cachecli import main
    sys.exit(main(sys.argv[2:]))

from .sysreport import main

sys.exit(main())
