# Installs the skillopt-sleep skill for Codex into ~\.agents\skills\skillopt-sleep\ on
# Windows. The PowerShell twin of install.sh, with the same behaviour:
#
#   install.ps1 [-DryRun] [-Uninstall]
#
# UNTESTED: the project's test machines have no PowerShell, so this script has never been
# run. install.sh is the tested installer; report any problem with this one.
#
# Idempotent: an identical installed copy is left alone. A different copy is backed up to
# ~\.agents\.skillopt-sleep-backups\<time>\ (outside the skills root) before it is
# replaced or removed. Every action is printed. The legacy root ($env:CODEX_HOME\skills,
# default ~\.codex\skills) is never written; a copy there is reported.
[CmdletBinding()]
param(
    [switch]$DryRun,
    [switch]$Uninstall
)
$ErrorActionPreference = 'Stop'

$Name = 'skillopt-sleep'
$SourceDir = Join-Path (Join-Path $PSScriptRoot 'skills') $Name
$TargetRoot = Join-Path (Join-Path $HOME '.agents') 'skills'
$Target = Join-Path $TargetRoot $Name
$BackupRoot = Join-Path (Join-Path $HOME '.agents') '.skillopt-sleep-backups'
$CodexHome = if ($env:CODEX_HOME) { $env:CODEX_HOME } else { Join-Path $HOME '.codex' }
$Legacy = Join-Path (Join-Path $CodexHome 'skills') $Name

function Report([string]$Message) {
    if ($DryRun) { Write-Output "[dry-run] $Message" } else { Write-Output $Message }
}

function Invoke-Action([string]$Description, [scriptblock]$Action) {
    if ($DryRun) { Write-Output "[dry-run] would: $Description"; return }
    Write-Output "+ $Description"
    & $Action
}

function Test-SameTree([string]$A, [string]$B) {
    if (-not (Test-Path $A -PathType Container) -or -not (Test-Path $B -PathType Container)) {
        return $false
    }
    $left = Get-ChildItem -Recurse -File $A | ForEach-Object {
        $_.FullName.Substring($A.Length) + ':' + (Get-FileHash $_.FullName).Hash }
    $right = Get-ChildItem -Recurse -File $B | ForEach-Object {
        $_.FullName.Substring($B.Length) + ':' + (Get-FileHash $_.FullName).Hash }
    return -not (Compare-Object @($left | Sort-Object) @($right | Sort-Object))
}

function Backup-Target {
    $stamp = (Get-Date).ToUniversalTime().ToString('yyyyMMddTHHmmssZ')
    $dest = Join-Path $BackupRoot $stamp
    if (Test-Path (Join-Path $dest $Name)) { $dest = "$dest-$PID" }
    Invoke-Action "mkdir $dest" { New-Item -ItemType Directory -Force -Path $dest | Out-Null }
    Invoke-Action "copy $Target -> $dest\$Name" { Copy-Item -Recurse $Target (Join-Path $dest $Name) }
    Report "backed up $Target to $dest\$Name"
}

function Write-Warnings {
    if (Test-Path $Legacy) {
        Write-Warning "$Legacy also exists; Codex lists a skill found in both roots twice. Remove the legacy copy if it is an old install."
    }
    if (-not $Uninstall -and -not (Get-Command skillopt-sleep -ErrorAction SilentlyContinue)) {
        Write-Warning 'the skillopt-sleep command is not on PATH; the skill runs it. Install it from a clone of the repository: pipx install C:\path\to\skillopt-sleep'
    }
}

if (-not (Test-Path (Join-Path $SourceDir 'SKILL.md'))) {
    Write-Error "$SourceDir\SKILL.md is missing"
    exit 1
}

if ($Uninstall) {
    if (-not (Test-Path $Target)) {
        Write-Output "nothing to remove: $Target does not exist"
    } else {
        if (-not (Test-SameTree $SourceDir $Target)) { Backup-Target }
        Invoke-Action "remove $Target" { Remove-Item -Recurse -Force $Target }
        Report "removed $Target"
    }
} elseif (Test-SameTree $SourceDir $Target) {
    Write-Output "unchanged: $Target is already up to date"
} else {
    if (Test-Path $Target) {
        Backup-Target
        Invoke-Action "remove $Target" { Remove-Item -Recurse -Force $Target }
    }
    Invoke-Action "mkdir $TargetRoot" { New-Item -ItemType Directory -Force -Path $TargetRoot | Out-Null }
    Invoke-Action "copy $SourceDir -> $Target" { Copy-Item -Recurse $SourceDir $Target }
    Report "installed $Name skill into $Target (start a new Codex session to load it)"
}
Write-Warnings
