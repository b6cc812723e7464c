"""``python -m anonspread`` is the ``anonspread`` command."""

import sys

from anonspread.harness.cli import main

sys.exit(main())
