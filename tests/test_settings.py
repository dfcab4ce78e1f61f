"""Settings errors name the variable and never show a credential (CLI, Lambda, Python)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from noughts.service.settings import Settings, SettingsError, redacted

SECRET = "S3cretPassw0rd"

MALFORMED = [
    f"redis//:{SECRET}@cache.internal:6379/0",  # no colon after the scheme
    f"rediss//:{SECRET}@h:6379/0",
    f"redis://:{SECRET}@h:notaport/0",  # a port that is not a number
    f"redis://:{SECRET}@h:99999/0",  # out of range
    f"redis://:{SECRET}@:6379/0",  # no host
    f"redis://:{SECRET}@h:6379/zero",  # a database that is not a number
    f"http://user:{SECRET}@h:6379",
    f"redis://:{SECRET}/with/slash@h:6379/0",  # a password holding a slash
    f"redis://h:6379/zero?password={SECRET}",  # the password in the query
    f"redis://h:6379/0?password={SECRET}&socket_timeout=soon",  # a bad query value
    f"redis://:{SECRET}@:6379/0#{SECRET}",  # and in the fragment
]

IN_URLS = [
    f"redis://:{SECRET}@cache.internal:6379/0",
    f"redis://default:{SECRET}@cache.internal:6379/0",
    f"redis://cache.internal:6379/0?password={SECRET}",
    f"redis://cache.internal:6379/0?db=1&username=u&password={SECRET}",
    f"redis://cache.internal:6379/0?{SECRET}",
    f"redis://cache.internal:6379/0#{SECRET}",
    f"redis://:{SECRET}/with/slash@h:6379/0",
    f"redis://:pre?{SECRET}@h:6379/0",  # a "?" in the password
    f"redis://:pre#{SECRET}@h:6379/0",  # a "#" in the password
    f"redis://h:6379/0?password=pre@{SECRET}",
    f"redis//:{SECRET}@h:6379/0",
    f"unix://:{SECRET}@/run/redis.sock?db=0",
    f"unix:///run/redis.sock?password={SECRET}",
    f"redis://[::1:{SECRET}@h:6379/0",  # a malformed IPv6 host
]


def _environment(url: str) -> dict[str, str]:
    return {**os.environ, "NOUGHTS_CACHE_URL": url, "NOUGHTS_WARMUP": "false"}


@pytest.mark.parametrize("url", MALFORMED)
def test_the_error_names_the_setting_and_hides_the_password(url: str) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings(cache_url=url)
    text = str(caught.value)
    assert SECRET not in text and SECRET not in repr(caught.value)
    assert text.startswith("bad setting NOUGHTS_CACHE_URL: ")
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.mark.parametrize("url", MALFORMED)
def test_serve_says_one_line_and_no_password(url: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "noughts", "serve", "--port", "0"],
        env=_environment(url), capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2
    assert SECRET not in run.stdout + run.stderr
    assert run.stdout == ""  # no "serving" line before the error
    assert run.stderr.startswith("noughts: error: bad setting NOUGHTS_CACHE_URL: ")
    assert len(run.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("url", MALFORMED[:3])
def test_the_lambda_import_fails_without_the_password(url: str) -> None:
    script = (
        "try:\n"
        "    import noughts.service.lambda_handler\n"
        "except Exception as error:\n"
        "    print('raised', type(error).__name__, str(error), repr(error))\n"
        "import noughts.service.lambda_handler\n"  # again, uncaught: the traceback
    )
    run = subprocess.run([sys.executable, "-c", script], env=_environment(url),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "raised SettingsError bad setting NOUGHTS_CACHE_URL" in run.stdout
    assert "SettingsError: bad setting NOUGHTS_CACHE_URL" in run.stderr
    assert SECRET not in run.stdout + run.stderr


def test_a_good_url_is_kept_but_not_shown() -> None:
    url = f"rediss://:{SECRET}@cache.internal:6379/0"
    settings = Settings(cache_url=url)
    assert settings.cache_url == url
    assert SECRET not in repr(settings) and SECRET not in str(settings)


def test_other_settings_name_their_variable_and_value() -> None:
    with pytest.raises(SettingsError, match=r"^bad setting NOUGHTS_PORT: .*\(got 'abc'\)"):
        Settings(port="abc")


@pytest.mark.parametrize("url", IN_URLS)
def test_redacted_hides_the_credential_wherever_it_sits(url: str) -> None:
    shown = redacted(url)
    assert SECRET not in shown and "***" in shown
    assert redacted(shown) == shown  # (showing it again changes nothing)


def test_redacted_keeps_what_says_where_the_cache_is() -> None:
    assert redacted("rediss://cache.internal:6380/2") == "rediss://cache.internal:6380/2"
    shown = redacted(f"rediss://u:{SECRET}@cache.internal:6380/2?password={SECRET}&db=2")
    assert shown == "rediss://***@cache.internal:6380/2?password=***&db=***"
