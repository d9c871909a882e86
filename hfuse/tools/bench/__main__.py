from hfuse.tools.bench.suite import main

raise SystemExit(main())
