"""``python -m hooke``: the Python package's commands (``sweep``)."""

import sys

from .sweep_cli import main

if __name__ == "__main__":
    sys.exit(main())
