import AlarmCLI

AlarmCommand.main()
