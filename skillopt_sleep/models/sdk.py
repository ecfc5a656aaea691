"""What the provider-SDK backends share: the client built on first use, the one retry
policy, and the check that an answer is not empty."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from skillopt_sleep.errors import AuthError, ModelError
from skillopt_sleep.models.pricing import Price
from skillopt_sleep.models.retry import RetryPolicy, timed_call
from skillopt_sleep.records import Completion, ToolCall, Usage

ClientT = TypeVar("ClientT")


_TRAVELLED: dict[tuple[object, ...], Any] = {}
"""The clients of the models that arrived from another process, one per model here."""


class SdkLLM(Generic[ClientT]):
    """A model reached through its provider's SDK; subclasses name the SDK's pieces.

    ``kind`` is the spec prefix, ``key_variable`` the environment variable an
    ``AuthError`` points at, ``sdk_error`` what the SDK raises when it cannot build a
    client, ``transient`` what it raises for a dropped connection.
    """

    kind = ""
    key_variable = ""
    sdk_error: type[Exception] = Exception
    transient: tuple[type[BaseException], ...] = ()

    def __init__(
        self,
        model: str,
        *,
        price: Price,
        base_url: str | None = None,
        api_key: str | None = None,
        policy: RetryPolicy | None = None,
        stream: bool = False,
    ):
        self.name = f"{self.kind}:{model}"
        self.model = model
        self.price = price
        self.policy = policy or RetryPolicy()
        self.stream = stream
        self._base_url = base_url
        self._api_key = api_key
        self._client: ClientT | None = None

    def __getstate__(self) -> dict[str, Any]:
        # The client (its connection pool and locks) stays here; a copy in another process,
        # a night's replays on a cluster, builds its own on first use.
        return {k: v for k, v in self.__dict__.items() if k not in ("_client", "_travelled")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Each replay sent to a worker arrives as a fresh copy of the model: the copies of one
        # model share one client per worker process, so a call does not pay a new client and
        # a new connection.
        self.__dict__.update(state)
        self._travelled = (type(self), self.model, self._base_url, self._api_key, self.policy,
                           self.stream)
        self._client = None

    def _new_client(self) -> ClientT:
        """The SDK client, with the SDK's own retries off and ``policy.timeout_s``."""
        raise NotImplementedError

    def _sdk(self) -> ClientT:
        # Built on first use so a missing key surfaces as AuthError at the first call,
        # not when a command merely parses its flags.
        travelled = getattr(self, "_travelled", None)
        if self._client is None and travelled is not None:
            self._client = _TRAVELLED.get(travelled)
        if self._client is None:
            try:
                self._client = self._new_client()
            except self.sdk_error as exc:
                raise AuthError(f"{self.name}: cannot build the client ({exc}); "
                                f"set {self.key_variable}") from exc
            if travelled is not None:
                _TRAVELLED[travelled] = self._client
        return self._client

    def _call(self, attempt: Callable[[], Completion]) -> Completion:
        return timed_call(attempt, policy=self.policy, what=self.name,
                          transient_types=self.transient)

    def _finish(self, text: str, calls: list[ToolCall], usage: Usage, why: str) -> Completion:
        if not text.strip() and not calls:
            raise ModelError(f"{self.name}: empty answer ({why})")
        return Completion(text=text, tool_calls=calls, usage=usage,
                          cost_usd=self.price.cost(usage))
