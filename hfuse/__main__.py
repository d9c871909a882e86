from hfuse.tools.cli import main

raise SystemExit(main())
