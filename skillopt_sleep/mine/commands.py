"""Shell commands reduced to what they do: program and subcommand, never arguments.

``git commit -m "fix typo" && git push origin main`` is ``git commit`` and ``git push``;
``bash -lc 'cd api && PYTHONPATH=. python -m pytest -q tests/'`` is ``pytest``. The
arguments (messages, paths, flags) differ every time the same work is done; the program
and its subcommand are what repeat.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePosixPath

# Programs whose first word after the options names what they do.
_SUBCOMMANDS = frozenset((
    "git", "npm", "pnpm", "yarn", "bun", "docker", "docker-compose", "podman", "kubectl",
    "helm", "cargo", "go", "pip", "pip3", "poetry", "uv", "pdm", "hatch", "conda", "make",
    "just", "gh", "glab", "alembic", "terraform", "dotnet", "mvn", "gradle", "./gradlew",
    "gradlew", "rustup", "brew", "apt", "apt-get", "systemctl", "django-admin", "manage.py",
    "flask", "rails", "bundle", "rake", "composer", "php", "mix", "deno", "nx", "turbo",
    "tox", "nox", "pre-commit", "ruff", "aws", "gcloud", "az", "az",
    "firebase", "vercel", "heroku", "supabase", "prisma", "sqlx", "dbt", "ansible-playbook",
    "mkdocs", "sphinx-build", "openapi-generator", "openapi-generator-cli", "swift", "xcodebuild",
    "flutter", "dart", "pulumi", "skaffold", "minikube", "kind", "vagrant", "redis-cli",
    "playwright", "cypress", "vitest", "jest", "npx", "wrangler", "sam", "serverless",
))
# Programs whose subcommand is a noun and the word after it the verb (``gh pr create`` and
# ``gh pr view`` are different work): the verb is kept too.
_NOUN_VERB = frozenset({"gh", "glab", "az", "gcloud", "aws"})
# Short forms of the same subcommand.
_ALIASES = {("npm", "i"): "install", ("npm", "add"): "install", ("npm", "t"): "test",
            ("npm", "rm"): "uninstall", ("pnpm", "i"): "install", ("pnpm", "add"): "install",
            ("yarn", "add"): "install", ("bun", "add"): "install", ("pip", "i"): "install",
            ("git", "co"): "checkout", ("docker-compose", "up"): "up"}
# Options that take a value before the subcommand (``git -C repo status``).
_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "-f", "--file", "-n",
                     "--namespace", "--context", "-p", "--project", "--prefix"})
# Runners whose subcommand is itself a script name worth keeping ("npm run build").
_SCRIPT_RUNNERS = frozenset({"run", "run-script", "exec", "x"})
_WRAPPERS = frozenset({"sudo", "time", "env", "nohup", "exec", "command", "xargs", "timeout",
                       "nice", "watch", "stdbuf"})
_SHELLS = frozenset({"bash", "sh", "zsh", "fish", "pwsh", "powershell", "cmd"})
_PYTHON = re.compile(r"^python(?:\d(?:\.\d+)?)?$")
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SEPARATORS = re.compile(r"&&|\|\||[;|\n]")
_WORD = re.compile(r"^[a-z][a-z0-9:_-]*$")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1[^\n]*\n.*?(?:\n\2\b|\Z)", re.S)
# Package runners: the package run is the program.
_RUNNERS = frozenset({"npx", "pnpx", "bunx", "uvx", "pipx"})
_NOISE = frozenset({"cd", "echo", "true", "false", "set", "export", "source", ".", "printf",
                    "clear", "exit", "pwd", "sleep", "wait"})

LOOKS = frozenset({"ls", "cat", "sed", "head", "tail", "less", "more", "grep", "rg", "ag", "find",
                   "fd", "wc", "tree", "awk", "file", "stat", "du", "which", "git status",
                   "git diff", "git show", "git branch", "nl", "diff", "jq"})
"""Commands that only look around: nearly every task runs some, so they say little."""

_TESTS = frozenset({"pytest", "jest", "vitest", "mocha", "go test", "cargo test", "npm test",
                    "npm run test", "yarn test", "pnpm test", "pnpm run test", "yarn run test",
                    "playwright test", "cypress run", "tox", "nox", "rspec", "phpunit",
                    "dotnet test", "mvn test", "gradle test", "mix test", "deno test",
                    "bun test", "python -m unittest", "make test", "ctest", "swift test",
                    "flutter test", "rake test", "bundle exec"})
_BUILDS = frozenset({"npm run build", "yarn build", "pnpm build", "pnpm run build", "cargo build",
                     "go build", "docker build", "make", "make build", "tsc", "dotnet build",
                     "mvn package", "gradle build", "webpack", "vite build", "mkdocs build",
                     "sphinx-build", "docker compose", "swift build", "flutter build"})
_LINTS = frozenset({"ruff check", "ruff", "eslint", "flake8", "pylint", "mypy", "npm run lint",
                    "yarn lint", "pnpm lint", "cargo clippy", "golangci-lint run", "shellcheck",
                    "pre-commit run", "npm run typecheck", "stylelint", "pyright"})


def _split(command: str) -> list[list[str]]:
    """Simple commands of ``command`` as token lists (quotes honoured where they parse)."""
    out: list[list[str]] = []
    for part in _SEPARATORS.split(command):
        try:
            tokens = shlex.split(part, comments=False)
        except ValueError:
            tokens = part.split()
        if tokens:
            out.append(tokens)
    return out


def _strip_prefix(tokens: list[str]) -> list[str]:
    """Drop environment assignments and wrappers (``sudo``, ``env X=1``, ``timeout 5``)."""
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if _ENV.match(word) or word.startswith("-"):
            i += 1
        elif word in _WRAPPERS:
            i += 1
            if word == "timeout" and i < len(tokens) and tokens[i][:1].isdigit():
                i += 1
        else:
            break
    return tokens[i:]


def _first_word(tokens: list[str]) -> str | None:
    skip = False
    for word in tokens:
        if skip or word.startswith("-"):
            skip = word in _VALUED
            continue
        return word if _WORD.match(word) else None
    return None


def _normalise(tokens: list[str]) -> list[str]:
    tokens = _strip_prefix(tokens)
    if not tokens:
        return []
    program = PurePosixPath(tokens[0]).name if "/" in tokens[0] else tokens[0]
    rest = tokens[1:]
    if program in _SHELLS and len(rest) >= 2 and rest[0].startswith("-") and "c" in rest[0]:
        # ``bash -lc "a && b"``; harvesters that join argv lists lose the quotes.
        return commands_of(" ".join(rest[1:]))
    if program in _NOISE:
        return []
    if _PYTHON.match(program):
        if len(rest) >= 2 and rest[0] == "-m":
            module = rest[1]
            return [module if module in ("pytest", "mypy", "ruff", "black", "pip") else
                    f"python -m {module}"]
        script = next((w for w in rest if not w.startswith("-")), "")
        if PurePosixPath(script).name == "manage.py":
            return _normalise(["manage.py", *rest[rest.index(script) + 1:]])
        return ["python"]
    if program in _RUNNERS:
        tail = [w for w in rest if not w.startswith("-")]
        return [_normalise(tail)[0]] if tail and _normalise(tail) else [program]
    if program not in _SUBCOMMANDS:
        return [program.lower()]
    sub = _first_word(rest)
    if sub is None:
        return [program]
    if sub in _SCRIPT_RUNNERS and program in ("npm", "pnpm", "yarn", "bun", "uv", "poetry"):
        after = rest[rest.index(sub) + 1:]
        name = _first_word(after)
        return [f"{program} {sub} {name}" if name else f"{program} {sub}"]
    if program in _NOUN_VERB:
        verb = _first_word(rest[rest.index(sub) + 1:])
        if verb is not None:
            return [f"{program} {sub} {verb}"]
    return [f"{program} {_ALIASES.get((program, sub), sub)}"]


def commands_of(command: str) -> list[str]:
    """The normalised commands of a shell command line, in order, repeats dropped."""
    command = _HEREDOC.sub("", command)  # a here-document's body is data, not commands
    try:
        whole = shlex.split(command)
    except ValueError:
        whole = []
    if len(whole) >= 3 and whole[0] in _SHELLS and whole[1].startswith("-") and "c" in whole[1]:
        return commands_of(" ".join(whole[2:]))
    found: list[str] = []
    for tokens in _split(command):
        found += _normalise(tokens)
    return list(dict.fromkeys(found))


def outcome_class(command: str) -> str | None:
    """``tests``, ``build`` or ``lint`` for a normalised command that reports one, else None."""
    if command in _TESTS or command.endswith(" test"):
        return "tests"
    if command in _BUILDS or command.endswith(" build"):
        return "build"
    if command in _LINTS or command.endswith(" lint"):
        return "lint"
    return None
