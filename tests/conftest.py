"""Test-wide hooks: under the test command, a missing dependency fails (``strict_skips``);
a child process left running fails the run (``leftover_processes``); Stable-Baselines3
logs under pytest's temporary directory, not in the system's (``sb3_logs``)."""

pytest_plugins = ["strict_skips", "leftover_processes", "sb3_logs"]
