from hfuse.cli import main

raise SystemExit(main())
