import AlarmStream

AlarmStreamCommand.main()
