"""``python -m gdl.cli``: the same as the ``gdl`` command."""

import sys

from gdl.cli.app import main

sys.exit(main())
