"""``python -m gdl``: the same as the ``gdl`` command."""

import sys

from gdl.cli import main

sys.exit(main())
