"""Test-wide hooks: under the test command, a missing dependency fails (``strict_skips``);
a child process left running fails the run (``leftover_processes``)."""

pytest_plugins = ["strict_skips", "leftover_processes"]
