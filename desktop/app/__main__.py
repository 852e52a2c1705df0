"""`python -m desktop.app`: the desktop application on the settings it keeps (and `LINKVET_DB`), without the
command-line dispatcher; `linkvet gui` (or `linkvet-gui`) takes `--db`, `--lang`, `--screenshot`, `--size`."""

import sys

from desktop.launch import main

sys.exit(main())
