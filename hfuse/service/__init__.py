"""The run service the app uses: a script's run as a picklable request and result (`request`), run one
at a time in an isolated worker process with limits and a deadline (`worker`)."""
