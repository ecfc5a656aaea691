"""Operands of a command line that hold a password by their place, not by an option name.

- a user flag pairs with a password flag (``cqlsh -u U -p PASS``, ``ipmitool -U U -P PASS``,
  ``influx user create -n U -p PASS``): ``-p``/``-P``/``-w`` then hold a password even for
  a program this package does not know, when the value looks like one (``-p 8080:80`` or
  ``-w /app`` do not);
- programs that take the password as a positional argument (``htpasswd -b``,
  ``mosquitto_passwd -b``, ``wpa_passphrase``, ``net user``, unixODBC's ``isql``).
"""

from __future__ import annotations

from skillopt_sleep.secrets.values import Name, looks_random, password_like, plausible_secret

__all__ = ["PAIRED", "flags_name_passwords", "generated_or_password", "program_positional",
           "user_given"]

PAIRED = frozenset({"-p", "-P", "-w"})
_USER_FLAGS = frozenset({"-u", "-U", "--user", "--username", "-user", "-username", "-l"})


def user_given(words: list[str]) -> bool:
    """A user name given by a flag (``-u NAME``, ``-uNAME``, ``--user=NAME``), or a command
    about a user (``influx user create -n NAME -p PASS``)."""
    if any(w in ("user", "users") for w in words[1:3]):
        return True
    for i, word in enumerate(words):
        if word in _USER_FLAGS and i + 1 < len(words) and not words[i + 1].startswith("-"):
            return True
        if word.startswith(("--user=", "--username=")) or (
                word[:2] in ("-u", "-U") and len(word) > 2 and word[2].isalpha()
                and not word.startswith("--")):
            return True
    return False


def generated_or_password(value: str) -> bool:
    """A value that looks like a password or a generated token, not a path."""
    return value[:1] not in "/~." and (password_like(value) or looks_random(value))


def program_positional(name: str, words: list[str]) -> list[str]:
    """Programs that take a password as a positional argument: ``htpasswd -b FILE USER
    PASS`` (``-nb USER PASS``), ``mosquitto_passwd -b FILE USER PASS``, ``wpa_passphrase
    SSID PASS``, ``net user NAME PASS``, ``isql DSN USER PASS``."""
    flags = "".join(w[1:] for w in words[1:] if w.startswith("-") and not w.startswith("--"))
    args = [w for w in words[1:] if not w.startswith(("-", "/", ">", "<", "|"))
            or (w.startswith("/") and name != "net")]
    index = -1
    if name == "htpasswd" and "b" in flags:
        index = 1 if "n" in flags else 2
    elif name == "mosquitto_passwd" and "b" in flags:
        index = 2
    elif name == "wpa_passphrase":
        index = 1
    elif (name == "isql" and len(args) >= 3) or (
            name == "net" and args[:1] and args[0].lower() == "user"):
        index = 2
    if 0 <= index < len(args) and plausible_secret(args[index], Name.STRONG) \
            and args[index] != "*":
        return [args[index]]
    return []


# Container CLIs take a password with ``-p`` only when they log in.
_CONTAINER_CLIS = frozenset({"docker", "podman", "buildah", "skopeo", "nerdctl", "crane"})


def flags_name_passwords(name: str, part: list[str]) -> bool:
    """Whether program ``name``'s own password flags mean a password in ``part``:
    ``docker run -p 5432:5432`` publishes a port, ``docker login -p`` takes a password."""
    return name not in _CONTAINER_CLIS or "login" in part
