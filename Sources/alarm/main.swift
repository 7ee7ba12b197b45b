print("alarm: the CLI is being built (issue #2)")
