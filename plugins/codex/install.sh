#!/usr/bin/env bash
# Installs the skillopt-sleep skill for Codex into ~/.agents/skills/skillopt-sleep/ (the
# user skill root that Codex, Copilot CLI and VS Code all read).
#
#   install.sh [--dry-run] [--uninstall]
#
# Idempotent: an identical installed copy is left alone. A different copy is backed up to
# ~/.agents/.skillopt-sleep-backups/<time>/ (outside the skills root, so Codex does not
# list the backup as a second skill) before it is replaced or removed. Every action is
# printed. The legacy root ($CODEX_HOME/skills, default ~/.codex/skills) is never written;
# a skillopt-sleep skill found there is reported, because Codex would list it twice.
set -euo pipefail

NAME="skillopt-sleep"
SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/skills/$NAME"
TARGET_ROOT="$HOME/.agents/skills"
TARGET="$TARGET_ROOT/$NAME"
BACKUP_ROOT="$HOME/.agents/.skillopt-sleep-backups"
LEGACY="${CODEX_HOME:-$HOME/.codex}/skills/$NAME"
DRY_RUN=0
MODE="install"

usage() {
    sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

say() { printf '%s\n' "$*"; }

# An outcome line; under --dry-run it says what would have happened.
report() {
    if [ "$DRY_RUN" -eq 1 ]; then
        say "[dry-run] $*"
    else
        say "$*"
    fi
}

# Runs a command, or only prints it under --dry-run.
act() {
    if [ "$DRY_RUN" -eq 1 ]; then
        say "[dry-run] would: $*"
    else
        say "+ $*"
        "$@"
    fi
}

same_tree() {
    [ -d "$1" ] && [ -d "$2" ] && diff -r -q "$1" "$2" >/dev/null 2>&1
}

backup() {
    local stamp dest
    stamp="$(date -u +%Y%m%dT%H%M%SZ)"
    dest="$BACKUP_ROOT/$stamp"
    if [ -e "$dest/$NAME" ]; then
        dest="$BACKUP_ROOT/$stamp-$$"
    fi
    act mkdir -p "$dest"
    act cp -R "$TARGET" "$dest/$NAME"
    report "backed up $TARGET to $dest/$NAME"
}

warn_legacy() {
    if [ -e "$LEGACY" ]; then
        say "warning: $LEGACY also exists; Codex lists a skill found in both roots twice." >&2
        say "         Remove the legacy copy if it is an old install: rm -r '$LEGACY'" >&2
    fi
}

warn_engine() {
    if ! command -v skillopt-sleep >/dev/null 2>&1; then
        say "note: the skillopt-sleep command is not on PATH; the skill runs it." >&2
        say "      Install it from a clone of the repository: pipx install /path/to/skillopt-sleep" >&2
    fi
}

install_skill() {
    [ -f "$SOURCE_DIR/SKILL.md" ] || { say "error: $SOURCE_DIR/SKILL.md is missing" >&2; exit 1; }
    if same_tree "$SOURCE_DIR" "$TARGET"; then
        say "unchanged: $TARGET is already up to date"
    else
        if [ -e "$TARGET" ]; then
            backup
            act rm -rf "$TARGET"
        fi
        act mkdir -p "$TARGET_ROOT"
        act cp -R "$SOURCE_DIR" "$TARGET"
        report "installed $NAME skill into $TARGET (start a new Codex session to load it)"
    fi
    warn_legacy
    warn_engine
}

uninstall_skill() {
    if [ ! -e "$TARGET" ]; then
        say "nothing to remove: $TARGET does not exist"
    else
        if ! same_tree "$SOURCE_DIR" "$TARGET"; then
            backup
        fi
        act rm -rf "$TARGET"
        report "removed $TARGET"
    fi
    warn_legacy
}

main() {
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --dry-run) DRY_RUN=1 ;;
            --uninstall) MODE="uninstall" ;;
            -h|--help) usage; exit 0 ;;
            *) say "error: unknown option $1 (use --dry-run, --uninstall)" >&2; exit 2 ;;
        esac
        shift
    done
    if [ "$MODE" = "uninstall" ]; then
        uninstall_skill
    else
        install_skill
    fi
}

main "$@"
