"""The services the app uses: a script's run (`request`) and a fusion's compile for the diagrams
(`compile`) as picklable requests and results, run in isolated worker processes with limits and
deadlines (`worker`)."""
