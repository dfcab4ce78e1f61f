"""Test-wide hooks: under the test command, a missing dependency fails (``strict_skips``)."""

pytest_plugins = ["strict_skips"]
