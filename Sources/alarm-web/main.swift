import AlarmWeb

AlarmWebCommand.main()
