"""Base URLs: how each wire API's URL is written, and the free request that proves one works.

The SDKs join paths onto a base URL differently: the ``anthropic`` SDK appends
``/v1/messages`` to the server root, the ``openai`` SDK appends ``/chat/completions`` or
``/responses`` to a base that already ends in ``/v1``. Users write either form, so a base URL
is normalised per wire API: an Anthropic URL ending in ``/v1`` loses it (never
``/v1/v1/messages``), an OpenAI URL with no path at all gains it.

``probe`` asks an endpoint for its model list (``GET …/v1/models``): free, no tokens, and it
tells a closed port, a wrong path (404) and a refused key (401/403) apart before a night
starts. It is the only request a pre-flight check sends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from skillopt_sleep.errors import ConfigError
from skillopt_sleep.models.base import Finding

PROBE_TIMEOUT_S = 5.0
"""A pre-flight probe is a local question; a server that takes longer is reported, not awaited."""

_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "0.0.0.0")


def checked(url: str) -> str:
    """``url`` without trailing slashes; ``ConfigError`` unless it is an http(s) URL with a host."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"base URL {url!r} is not an http:// or https:// URL with a host")
    return url.strip().rstrip("/")


def anthropic_root(url: str) -> str:
    """The server root the ``anthropic`` SDK and Claude Code append ``/v1/messages`` to."""
    url = checked(url)
    return url[: -len("/v1")] if url.endswith("/v1") else url


def openai_base(url: str) -> str:
    """The ``…/v1`` base the ``openai`` SDK and Codex append ``/responses`` to."""
    url = checked(url)
    return url + "/v1" if urlsplit(url).path in ("", "/") else url


def is_local(url: str) -> bool:
    return (urlsplit(url).hostname or "") in _LOCAL_HOSTS


def probe(list_models: Callable[[], Any], url: str, sdk: Any, fix_key: str,
          empty_call: Callable[[], Any] | None = None) -> Finding:
    """Run ``list_models`` (one ``GET …/models`` through the SDK) and say what it showed.

    ``sdk`` is the SDK module (``anthropic`` or ``openai``): both name their errors alike.
    A 404 there is a wrong path or a gateway that lists no models; ``empty_call`` (a POST
    of an empty body to the completion path: refused as a bad request, no tokens) tells
    them apart: a gateway that answers it is a warning, never a reason to stop the night.
    """
    try:
        list_models()
    except sdk.AuthenticationError as exc:
        return Finding("endpoint", "error", f"{url} refused the credentials (401: "
                       f"{_message(exc)}); check {fix_key}")
    except sdk.PermissionDeniedError as exc:
        return Finding("endpoint", "error", f"{url} refused access (403: {_message(exc)}); "
                       f"check {fix_key} and its permissions")
    except sdk.NotFoundError:
        return _no_model_list(url, sdk, empty_call)
    except sdk.APITimeoutError:
        return Finding("endpoint", "error", f"{url} did not answer within "
                       f"{PROBE_TIMEOUT_S:g} s; is the server up?")
    except sdk.APIConnectionError as exc:
        return Finding("endpoint", "error", f"cannot connect to {url} ({_cause(exc)}); is the "
                       "server running, and is the host and port right?")
    except sdk.APIStatusError as exc:
        # The server is there and speaks HTTP; a 5xx now may pass by the time the night runs.
        return Finding("endpoint", "warning", f"{url} answered {exc.status_code} for its model "
                       "list; the first call will tell")
    return Finding("endpoint", "ok", f"{url} answered")


def _message(exc: Any) -> str:
    return str(getattr(exc, "message", exc))[:200]


def _cause(exc: BaseException) -> str:
    cause: BaseException = exc
    while cause.__cause__ is not None:
        cause = cause.__cause__
    return str(cause)[:200] or type(cause).__name__


def _no_model_list(url: str, sdk: Any, empty_call: Callable[[], Any] | None) -> Finding:
    wrong = Finding("endpoint", "error", f"{url} answered 404 for its model list: the base "
                    "URL's path is probably wrong (Anthropic: the server root; OpenAI: the "
                    "…/v1 base)")
    if empty_call is None:
        return wrong
    try:
        empty_call()
    except sdk.NotFoundError:
        return wrong
    except sdk.APIStatusError:
        pass  # a 400 for the empty body: the completion path is there
    except sdk.APIConnectionError:
        return wrong
    return Finding("endpoint", "warning", f"{url} lists no models (404) but answers its "
                   "completion path: a gateway without a model list; the first call will "
                   "tell (doctor --live makes one)")
