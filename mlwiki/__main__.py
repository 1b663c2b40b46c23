from mlwiki.cli import main

raise SystemExit(main())
