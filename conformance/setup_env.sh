#!/usr/bin/env bash
# Make conformance/.venv: real Numba 0.68.1 and numba-cuda 0.30.4 (their wheels ship their
# test suites) beside kiln (editable, from this checkout). Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
py="${PYTHON:-python3.11}"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip setuptools wheel
"$venv/bin/python" -m pip install -q "numba==0.68.1" scipy cffi pytest pyyaml filecheck
# numba-cuda is optional: its CUDA modules are skipped when it does not install
"$venv/bin/python" -m pip install -q "numba-cuda==0.30.4" || echo "numba-cuda did not install: CUDA modules will be skipped"
"$venv/bin/python" -m pip install -q -e "$repo"
"$venv/bin/python" -c "import numba, kiln; print('numba', numba.__version__, 'kiln', kiln.__version__)"
