import AlarmButton

AlarmButtonCommand.main()
