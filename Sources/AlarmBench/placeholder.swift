enum AlarmBench { }
