"""`python -m desktop.app`: the desktop application without the command-line dispatcher."""

import sys

from desktop.launch import main

sys.exit(main())
