import AlarmHooks

AlarmHooksCommand.main()
