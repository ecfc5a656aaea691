"""The proof run as a script: ``python experiments/run_experiment.py --persona researcher
--assert-improves`` is ``skillopt-sleep prove --persona researcher --assert-improves``.

Every option of ``skillopt-sleep prove`` is accepted (``--seed``, ``--nights``, ``--no-gate``,
``--json``, ``--full``, ``--target``/``--optimizer`` …); see ``skillopt-sleep prove --help``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skillopt_sleep.cli.app import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "prove", *sys.argv[1:]]
    main()
