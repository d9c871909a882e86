import sys

from hfuse.tools.fuzz.campaign import main

sys.exit(main())
