# ruff: noqa: E501  (data: one phrasing per line reads better than wrapped strings)
"""Labelled task families for the multilingual mining benchmark (``experiments/multilingual_data.py``).

Each family is one recurring task of a developer's project: two phrasings in each of five
languages (English, Spanish, German, Japanese, Russian), and the work an agent does for
it, as steps with alternatives (the generator picks one per request, so no two requests
of a family need run the same commands on the same files). ``NEAR_MISSES`` are single
requests worded like a family but whose work is different: they must stay alone.

Steps: ``("sh", [commands])`` one shell command; ``("edit"|"read"|"write", [paths])`` one
file (paths relative to the project); ``("fail", p)`` the family's test/build/lint command
fails first with probability ``p`` (the agent then edits and runs it again). Near misses
that do the same work in several languages share a ``work`` label: they are one task.
"""

from __future__ import annotations

from typing import Any

PROJECT = "/srv/dev/shop"
LANGUAGES = ("en", "es", "de", "ja", "ru")

PY = ["api/shop/cart.py", "api/shop/orders.py", "api/shop/users.py", "api/shop/payments.py",
      "api/shop/catalog.py"]
PYTEST = ["pytest", "python -m pytest -q", "pytest api/tests -x", "pytest -q api/tests"]

FAMILIES: dict[str, dict[str, Any]] = {
    "run_tests": {"steps": [("sh", PYTEST), ("fail", 0.3)], "text": {
        "en": ["run the test suite", "can you run the backend tests and tell me what fails"],
        "es": ["ejecuta las pruebas", "corre los tests del backend y dime qué falla"],
        "de": ["führ die Tests aus", "lass bitte die Backend-Tests laufen und sag mir, was fehlschlägt"],
        "ja": ["テストを実行して", "バックエンドのテストを走らせて、何が落ちるか教えて"],
        "ru": ["запусти тесты", "прогони тесты бэкенда и скажи, что падает"]}},
    "fix_failing_test": {"steps": [("sh", PYTEST), ("read", ["api/tests/test_cart.py", "api/tests/test_orders.py"]),
                                   ("edit", PY), ("sh", PYTEST), ("fail", 1.0)], "text": {
        "en": ["the cart test is failing, fix it", "make the failing test pass again"],
        "es": ["el test del carrito falla, arréglalo", "haz que vuelva a pasar la prueba que falla"],
        "de": ["der Warenkorb-Test schlägt fehl, behebe das", "sorg dafür, dass der rote Test wieder grün wird"],
        "ja": ["カートのテストが落ちているので直して", "失敗しているテストを通るように修正して"],
        "ru": ["падает тест корзины, почини", "сделай так, чтобы упавший тест снова проходил"]}},
    "write_unit_tests": {"steps": [("read", PY), ("write", ["api/tests/test_payments.py", "api/tests/test_users.py",
                                                          "api/tests/test_catalog.py"]), ("sh", PYTEST)], "text": {
        "en": ["write unit tests for the payments module", "add test coverage for the user service"],
        "es": ["escribe pruebas unitarias para el módulo de pagos", "añade tests para el servicio de usuarios"],
        "de": ["schreib Unit-Tests für das Zahlungsmodul", "ergänze Tests für den User-Service"],
        "ja": ["決済モジュールの単体テストを書いて", "ユーザーサービスのテストを追加して"],
        "ru": ["напиши юнит-тесты для модуля платежей", "добавь тесты для сервиса пользователей"]}},
    "commit_push": {"steps": [("sh", ["git status", "git diff --stat"]), ("sh", ["git add -A", "git add ."]),
                              ("sh", ["git commit -m 'wip'", "git commit -am 'update'"]),
                              ("sh", ["git push", "git push origin HEAD"])], "text": {
        "en": ["commit and push my changes", "save this work to git and push it"],
        "es": ["haz commit y push de mis cambios", "sube los cambios al repositorio"],
        "de": ["committe und pushe meine Änderungen", "bitte alles einchecken und hochladen"],
        "ja": ["変更をコミットしてプッシュして", "今の作業をgitに保存してpushしておいて"],
        "ru": ["закоммить и запушь изменения", "сохрани работу в гит и отправь на сервер"]}},
    "lint_fix": {"steps": [("sh", ["ruff check .", "ruff check api", "ruff check --fix ."]), ("fail", 0.8),
                           ("edit", PY)], "text": {
        "en": ["fix the lint errors", "ruff is complaining, clean that up"],
        "es": ["corrige los errores del linter", "ruff da avisos, límpialos"],
        "de": ["behebe die Linter-Fehler", "ruff meckert, räum das auf"],
        "ja": ["リンターのエラーを直して", "ruffの警告を消して"],
        "ru": ["исправь ошибки линтера", "ruff ругается, убери предупреждения"]}},
    "format_code": {"steps": [("sh", ["ruff format .", "black .", "ruff format api"])], "text": {
        "en": ["format the python code", "reformat everything to our style"],
        "es": ["formatea el código python", "aplica el formato de estilo a todo"],
        "de": ["formatiere den Python-Code", "bring den Code in unser Format"],
        "ja": ["Pythonコードをフォーマットして", "コード全体を整形して"],
        "ru": ["отформатируй код на питоне", "приведи весь код к нашему стилю"]}},
    "type_check": {"steps": [("sh", ["mypy api", "mypy .", "mypy --strict api/shop"]), ("fail", 0.7),
                             ("edit", PY)], "text": {
        "en": ["fix the type errors mypy reports", "make the type checker happy"],
        "es": ["arregla los errores de tipos de mypy", "haz que pase la comprobación de tipos"],
        "de": ["behebe die Typfehler von mypy", "sorg dafür, dass die Typprüfung durchläuft"],
        "ja": ["mypyの型エラーを直して", "型チェックが通るようにして"],
        "ru": ["исправь ошибки типов от mypy", "сделай так, чтобы проверка типов проходила"]}},
    "update_changelog": {"steps": [("sh", ["git log --oneline -20", "git log --since=1.week"]),
                                   ("edit", ["CHANGELOG.md"])], "text": {
        "en": ["update the changelog with this week's changes", "add the recent commits to CHANGELOG.md"],
        "es": ["actualiza el changelog con los cambios de esta semana", "añade los commits recientes al registro de cambios"],
        "de": ["aktualisiere das Changelog mit den Änderungen dieser Woche", "trag die letzten Commits ins CHANGELOG ein"],
        "ja": ["今週の変更で変更履歴を更新して", "最近のコミットをCHANGELOGに追記して"],
        "ru": ["обнови список изменений за эту неделю", "добавь последние коммиты в CHANGELOG"]}},
    "bump_version": {"steps": [("edit", ["pyproject.toml"]), ("edit", ["api/shop/__init__.py"]),
                               ("sh", ["git commit -am 'bump version'", "git add -A"])], "text": {
        "en": ["bump the version to the next minor", "increase the package version number"],
        "es": ["sube la versión a la siguiente menor", "incrementa el número de versión del paquete"],
        "de": ["erhöhe die Version auf das nächste Minor-Release", "zähl die Paketversion hoch"],
        "ja": ["バージョンを次のマイナーに上げて", "パッケージのバージョン番号を上げて"],
        "ru": ["подними версию до следующей минорной", "увеличь номер версии пакета"]}},
    "tag_release": {"steps": [("sh", ["git tag v1.4.0", "git tag -a v2.0.0 -m release"]),
                              ("sh", ["git push --tags", "git push origin v1.4.0"])], "text": {
        "en": ["tag the release and push the tag", "create a git tag for this version"],
        "es": ["etiqueta la versión y sube la etiqueta", "crea un tag de git para esta versión"],
        "de": ["setz ein Release-Tag und pushe es", "leg einen Git-Tag für diese Version an"],
        "ja": ["リリースのタグを付けてプッシュして", "このバージョンのgitタグを作って"],
        "ru": ["поставь тег релиза и запушь его", "создай git-тег для этой версии"]}},
    "build_docker": {"steps": [("read", ["Dockerfile"]), ("sh", ["docker build -t shop-api .", "docker build -f Dockerfile ."]),
                               ("fail", 0.2)], "text": {
        "en": ["build the docker image", "make a container image of the api"],
        "es": ["construye la imagen de docker", "crea una imagen de contenedor de la api"],
        "de": ["bau das Docker-Image", "erstell ein Container-Image der API"],
        "ja": ["Dockerイメージをビルドして", "APIのコンテナイメージを作って"],
        "ru": ["собери докер-образ", "сделай образ контейнера для api"]}},
    "compose_up": {"steps": [("sh", ["docker compose up -d", "docker compose up --build -d"]),
                             ("sh", ["docker compose ps", "docker compose logs --tail 20"])], "text": {
        "en": ["bring up the local stack with compose", "start all the services locally"],
        "es": ["levanta el entorno local con compose", "arranca todos los servicios en local"],
        "de": ["fahr den lokalen Stack mit Compose hoch", "starte alle Dienste lokal"],
        "ja": ["composeでローカル環境を立ち上げて", "全部のサービスをローカルで起動して"],
        "ru": ["подними локальное окружение через compose", "запусти все сервисы локально"]}},
    "run_migrations": {"steps": [("sh", ["alembic upgrade head", "alembic -c api/alembic.ini upgrade head"]),
                                 ("sh", ["alembic current", "alembic history"])], "text": {
        "en": ["apply the database migrations", "migrate the db to the latest schema"],
        "es": ["aplica las migraciones de la base de datos", "migra la bd al último esquema"],
        "de": ["spiel die Datenbank-Migrationen ein", "bring die DB auf das neueste Schema"],
        "ja": ["データベースのマイグレーションを適用して", "DBを最新のスキーマに移行して"],
        "ru": ["примени миграции базы данных", "обнови схему бд до последней версии"]}},
    "create_migration": {"steps": [("edit", ["api/shop/models.py"]),
                                   ("sh", ["alembic revision --autogenerate -m 'add column'", "alembic revision -m new"]),
                                   ("write", ["api/migrations/versions/0042_add_column.py", "api/migrations/versions/0043_new.py"])],
                         "text": {
        "en": ["add a column to the orders table with a migration", "create a new alembic migration for the model change"],
        "es": ["añade una columna a la tabla de pedidos con una migración", "crea una migración nueva para el cambio del modelo"],
        "de": ["füg der Bestelltabelle eine Spalte per Migration hinzu", "erzeug eine neue Migration für die Modelländerung"],
        "ja": ["マイグレーションで注文テーブルに列を追加して", "モデル変更用の新しいマイグレーションを作って"],
        "ru": ["добавь колонку в таблицу заказов через миграцию", "создай новую миграцию для изменения модели"]}},
    "frontend_tests": {"steps": [("sh", ["npm test", "npx vitest run", "npm run test -- --run"]), ("fail", 0.3)], "text": {
        "en": ["run the frontend unit tests", "check that the web tests still pass"],
        "es": ["ejecuta las pruebas del frontend", "comprueba que los tests web siguen pasando"],
        "de": ["führ die Frontend-Tests aus", "prüf, ob die Web-Tests noch grün sind"],
        "ja": ["フロントエンドのテストを実行して", "webのテストがまだ通るか確認して"],
        "ru": ["запусти тесты фронтенда", "проверь, что веб-тесты всё ещё проходят"]}},
    "frontend_build": {"steps": [("sh", ["npm run build", "npm run build -- --mode production"]), ("fail", 0.2)], "text": {
        "en": ["build the frontend for production", "produce the production bundle of the web app"],
        "es": ["compila el frontend para producción", "genera el bundle de producción de la web"],
        "de": ["bau das Frontend für Produktion", "erzeug das Produktions-Bundle der Web-App"],
        "ja": ["フロントエンドを本番用にビルドして", "webアプリの本番バンドルを作って"],
        "ru": ["собери фронтенд для продакшена", "сделай продакшен-сборку веб-приложения"]}},
    "dev_server": {"steps": [("sh", ["npm run dev", "npm run dev -- --port 5174"])], "text": {
        "en": ["start the dev server", "spin up the frontend locally so I can click around"],
        "es": ["arranca el servidor de desarrollo", "levanta el frontend en local para probarlo"],
        "de": ["starte den Dev-Server", "lass das Frontend lokal laufen, damit ich es ausprobieren kann"],
        "ja": ["開発サーバーを起動して", "フロントをローカルで動かして触れるようにして"],
        "ru": ["запусти дев-сервер", "подними фронтенд локально, чтобы я мог потыкать"]}},
    "add_npm_dep": {"steps": [("sh", ["npm install date-fns", "npm install zod", "npm i axios"]),
                              ("edit", ["web/src/api/client.ts", "web/src/utils/dates.ts"])], "text": {
        "en": ["add date-fns to the frontend and use it", "install a new npm package for the web app"],
        "es": ["añade date-fns al frontend y úsalo", "instala un paquete npm nuevo para la web"],
        "de": ["füg date-fns zum Frontend hinzu und verwende es", "installier ein neues npm-Paket für die Web-App"],
        "ja": ["フロントにdate-fnsを追加して使って", "webアプリに新しいnpmパッケージを入れて"],
        "ru": ["добавь date-fns во фронтенд и используй его", "установи новый npm-пакет для веб-приложения"]}},
    "update_py_deps": {"steps": [("sh", ["uv lock --upgrade", "pip install -U -r requirements.txt", "uv sync --upgrade"]),
                                 ("edit", ["requirements.txt", "uv.lock"]), ("sh", PYTEST)], "text": {
        "en": ["update the python dependencies", "upgrade our backend packages to the latest versions"],
        "es": ["actualiza las dependencias de python", "sube los paquetes del backend a las últimas versiones"],
        "de": ["aktualisiere die Python-Abhängigkeiten", "heb die Backend-Pakete auf die neuesten Versionen"],
        "ja": ["Pythonの依存関係を更新して", "バックエンドのパッケージを最新版に上げて"],
        "ru": ["обнови зависимости питона", "подними пакеты бэкенда до последних версий"]}},
    "npm_audit": {"steps": [("sh", ["npm audit", "npm audit --production"]), ("sh", ["npm audit fix"])], "text": {
        "en": ["fix the npm security vulnerabilities", "run an audit of the node packages and patch what it finds"],
        "es": ["corrige las vulnerabilidades de npm", "audita los paquetes de node y arregla lo que encuentre"],
        "de": ["behebe die Sicherheitslücken in npm", "prüf die Node-Pakete auf Schwachstellen und flick sie"],
        "ja": ["npmの脆弱性を修正して", "nodeパッケージを監査して見つかったものを直して"],
        "ru": ["исправь уязвимости в npm", "проверь node-пакеты на уязвимости и залатай"]}},
    "e2e_tests": {"steps": [("sh", ["npx playwright test", "npx playwright test e2e/checkout.spec.ts"]), ("fail", 0.3)], "text": {
        "en": ["run the end-to-end tests", "run the browser tests for checkout"],
        "es": ["ejecuta las pruebas end-to-end", "corre los tests de navegador del checkout"],
        "de": ["führ die End-to-End-Tests aus", "lass die Browser-Tests für den Checkout laufen"],
        "ja": ["E2Eテストを実行して", "チェックアウトのブラウザテストを回して"],
        "ru": ["запусти сквозные тесты", "прогони браузерные тесты оформления заказа"]}},
    "open_pr": {"steps": [("sh", ["git push -u origin HEAD", "git push"]),
                          ("sh", ["gh pr create --fill", "gh pr create --title 'x' --body 'y'"])], "text": {
        "en": ["open a pull request for this branch", "create a PR with these changes"],
        "es": ["abre un pull request para esta rama", "crea una PR con estos cambios"],
        "de": ["mach einen Pull Request für diesen Branch auf", "erstell einen PR mit diesen Änderungen"],
        "ja": ["このブランチのプルリクエストを作って", "この変更でPRを出して"],
        "ru": ["открой пулл-реквест для этой ветки", "создай PR с этими изменениями"]}},
    "check_ci": {"steps": [("sh", ["gh run list --limit 5", "gh run list"]), ("sh", ["gh run view --log-failed", "gh run view 123"])],
                 "text": {
        "en": ["why did CI fail on my branch", "check the latest github actions run"],
        "es": ["por qué falló la CI en mi rama", "revisa la última ejecución de github actions"],
        "de": ["warum ist die CI auf meinem Branch rot", "schau dir den letzten GitHub-Actions-Lauf an"],
        "ja": ["自分のブランチでCIが落ちた理由を調べて", "最新のGitHub Actionsの実行結果を見て"],
        "ru": ["почему упал CI в моей ветке", "посмотри последний запуск github actions"]}},
    "review_pr": {"steps": [("sh", ["gh pr view 57", "gh pr view"]), ("sh", ["gh pr diff 57", "gh pr diff"])], "text": {
        "en": ["review pull request 57", "look over the open PR and give me feedback"],
        "es": ["revisa el pull request 57", "mira la PR abierta y dame tu opinión"],
        "de": ["reviewe Pull Request 57", "schau dir den offenen PR an und gib mir Feedback"],
        "ja": ["プルリクエスト57をレビューして", "開いているPRを見てフィードバックして"],
        "ru": ["сделай ревью пулл-реквеста 57", "посмотри открытый PR и дай отзыв"]}},
    "rebase_main": {"steps": [("sh", ["git fetch origin", "git fetch"]), ("sh", ["git rebase origin/main", "git rebase main"])],
                    "text": {
        "en": ["rebase my branch on main", "bring this branch up to date with the latest main"],
        "es": ["haz rebase de mi rama sobre main", "actualiza esta rama con lo último de main"],
        "de": ["rebase meinen Branch auf main", "bring den Branch auf den Stand von main"],
        "ja": ["ブランチをmainにリベースして", "このブランチを最新のmainに追従させて"],
        "ru": ["сделай ребейз моей ветки на main", "подтяни ветку до последнего main"]}},
    "resolve_conflicts": {"steps": [("sh", ["git status", "git diff --name-only --diff-filter=U"]), ("edit", PY),
                                    ("sh", ["git add -A", "git add api"]), ("sh", ["git rebase --continue", "git merge --continue"])],
                          "text": {
        "en": ["resolve the merge conflicts", "sort out the conflicts from the rebase"],
        "es": ["resuelve los conflictos de merge", "arregla los conflictos del rebase"],
        "de": ["löse die Merge-Konflikte", "kümmer dich um die Konflikte aus dem Rebase"],
        "ja": ["マージコンフリクトを解消して", "リベースで出たコンフリクトを片付けて"],
        "ru": ["разреши конфликты слияния", "разберись с конфликтами после ребейза"]}},
    "revert_commit": {"steps": [("sh", ["git log --oneline -5", "git log -3"]), ("sh", ["git revert HEAD --no-edit", "git revert abc123"])],
                      "text": {
        "en": ["revert the last commit", "undo the commit that broke the build"],
        "es": ["revierte el último commit", "deshaz el commit que rompió la build"],
        "de": ["mach den letzten Commit rückgängig", "revertiere den Commit, der den Build kaputt gemacht hat"],
        "ja": ["直前のコミットをリバートして", "ビルドを壊したコミットを取り消して"],
        "ru": ["откати последний коммит", "отмени коммит, который сломал сборку"]}},
    "new_branch": {"steps": [("sh", ["git switch -c feature/x", "git checkout -b fix/y"])], "text": {
        "en": ["create a new branch for this feature", "start a fresh branch off main"],
        "es": ["crea una rama nueva para esta funcionalidad", "empieza una rama nueva desde main"],
        "de": ["leg einen neuen Branch für das Feature an", "fang einen frischen Branch von main an"],
        "ja": ["この機能用に新しいブランチを作って", "mainから新しいブランチを切って"],
        "ru": ["создай новую ветку под эту фичу", "начни новую ветку от main"]}},
    "deploy_staging": {"steps": [("sh", ["kubectl apply -f k8s/staging", "kubectl apply -k k8s/overlays/staging"]),
                                 ("sh", ["kubectl rollout status deploy/api", "kubectl get pods"])], "text": {
        "en": ["deploy to staging", "ship the current build to the staging cluster"],
        "es": ["despliega en staging", "manda la build actual al clúster de staging"],
        "de": ["deploy auf Staging", "roll den aktuellen Stand auf den Staging-Cluster aus"],
        "ja": ["ステージングにデプロイして", "今のビルドをステージングクラスタに出して"],
        "ru": ["задеплой на стейджинг", "выкати текущую сборку в стейджинг-кластер"]}},
    "tail_logs": {"steps": [("sh", ["kubectl logs deploy/api --tail 200", "kubectl logs -f deploy/api"])], "text": {
        "en": ["show me the api logs from production", "what do the server logs say"],
        "es": ["muéstrame los logs de la api en producción", "qué dicen los registros del servidor"],
        "de": ["zeig mir die API-Logs aus Produktion", "was steht in den Server-Logs"],
        "ja": ["本番のAPIログを見せて", "サーバーのログに何が出てるか見て"],
        "ru": ["покажи логи api с продакшена", "что пишут логи сервера"]}},
    "db_backup": {"steps": [("sh", ["pg_dump -Fc shop > backup.dump", "pg_dump shop -f backups/shop.sql"])], "text": {
        "en": ["back up the database", "take a dump of the postgres db before the change"],
        "es": ["haz una copia de seguridad de la base de datos", "saca un volcado de postgres antes del cambio"],
        "de": ["sichere die Datenbank", "zieh vor der Änderung einen Dump der Postgres-DB"],
        "ja": ["データベースをバックアップして", "変更前にpostgresのダンプを取って"],
        "ru": ["сделай бэкап базы данных", "сними дамп postgres перед изменением"]}},
    "readme_docs": {"steps": [("read", ["README.md"]), ("edit", ["README.md"])], "text": {
        "en": ["document the setup steps in the README", "update the readme with the new install instructions"],
        "es": ["documenta los pasos de instalación en el README", "actualiza el readme con las nuevas instrucciones"],
        "de": ["dokumentier die Einrichtung im README", "aktualisiere die README mit der neuen Installationsanleitung"],
        "ja": ["READMEにセットアップ手順を書いて", "新しいインストール手順でREADMEを更新して"],
        "ru": ["опиши шаги установки в README", "обнови ридми с новыми инструкциями по установке"]}},
    "docs_site": {"steps": [("edit", ["docs/index.md", "docs/api.md", "docs/deploy.md"]), ("sh", ["mkdocs build", "mkdocs build --strict"])],
                  "text": {
        "en": ["rebuild the documentation site", "update the docs pages and build the site"],
        "es": ["reconstruye el sitio de documentación", "actualiza las páginas de docs y genera el sitio"],
        "de": ["bau die Doku-Seite neu", "aktualisiere die Doku-Seiten und bau die Website"],
        "ja": ["ドキュメントサイトを再ビルドして", "ドキュメントのページを更新してサイトをビルドして"],
        "ru": ["пересобери сайт документации", "обнови страницы документации и собери сайт"]}},
    "add_endpoint": {"steps": [("edit", ["api/shop/routes/orders.py", "api/shop/routes/users.py"]),
                               ("edit", ["api/shop/schemas.py"]), ("sh", PYTEST)], "text": {
        "en": ["add an endpoint that lists a user's orders", "expose a new REST route for order history"],
        "es": ["añade un endpoint que liste los pedidos de un usuario", "expón una ruta REST nueva para el historial de pedidos"],
        "de": ["füg einen Endpunkt hinzu, der die Bestellungen eines Users auflistet", "stell eine neue REST-Route für die Bestellhistorie bereit"],
        "ja": ["ユーザーの注文一覧を返すエンドポイントを追加して", "注文履歴用の新しいRESTルートを公開して"],
        "ru": ["добавь эндпоинт со списком заказов пользователя", "сделай новый REST-маршрут для истории заказов"]}},
    "i18n_strings": {"steps": [("edit", ["web/src/locales/en.json"]), ("edit", ["web/src/locales/de.json", "web/src/locales/ja.json",
                                                                               "web/src/locales/es.json"])], "text": {
        "en": ["add the missing translations for the checkout page", "translate the new UI strings"],
        "es": ["añade las traducciones que faltan en la página de pago", "traduce los textos nuevos de la interfaz"],
        "de": ["ergänze die fehlenden Übersetzungen der Checkout-Seite", "übersetz die neuen UI-Texte"],
        "ja": ["チェックアウト画面の足りない翻訳を追加して", "新しいUI文言を翻訳して"],
        "ru": ["добавь недостающие переводы для страницы оплаты", "переведи новые строки интерфейса"]}},
    "css_styling": {"steps": [("edit", ["web/src/styles/header.css", "web/src/styles/buttons.css", "web/src/styles/layout.css"])],
                    "text": {
        "en": ["make the header look better on mobile", "fix the button styling"],
        "es": ["mejora el aspecto de la cabecera en móvil", "arregla el estilo de los botones"],
        "de": ["lass den Header auf dem Handy besser aussehen", "korrigier das Styling der Buttons"],
        "ja": ["スマホでヘッダーの見た目を良くして", "ボタンのスタイルを直して"],
        "ru": ["сделай шапку красивее на мобильных", "поправь стили кнопок"]}},
    "terraform": {"steps": [("sh", ["terraform plan", "terraform -chdir=infra plan"]), ("sh", ["terraform apply -auto-approve", "terraform apply"])],
                  "text": {
        "en": ["apply the infrastructure changes", "run terraform plan and apply"],
        "es": ["aplica los cambios de infraestructura", "ejecuta terraform plan y apply"],
        "de": ["wende die Infrastruktur-Änderungen an", "mach terraform plan und apply"],
        "ja": ["インフラの変更を適用して", "terraformでplanしてapplyして"],
        "ru": ["примени изменения инфраструктуры", "сделай terraform plan и apply"]}},
    "profile_perf": {"steps": [("sh", ["py-spy record -o profile.svg -- python -m shop.bench", "python -m cProfile -o out.prof api/bench.py"]),
                               ("edit", PY)], "text": {
        "en": ["profile the slow checkout endpoint", "find out why order listing is so slow and speed it up"],
        "es": ["perfila el endpoint lento del checkout", "averigua por qué el listado de pedidos es lento y acelera"],
        "de": ["profilier den langsamen Checkout-Endpunkt", "find raus, warum die Bestellliste so langsam ist, und mach sie schneller"],
        "ja": ["遅いチェックアウトのエンドポイントをプロファイルして", "注文一覧が遅い原因を調べて速くして"],
        "ru": ["попрофилируй медленный эндпоинт оплаты", "выясни, почему список заказов тормозит, и ускорь"]}},
    "clean_build": {"steps": [("sh", ["rm -rf dist build", "make clean", "rm -rf web/dist node_modules/.cache"])], "text": {
        "en": ["clean out the build artifacts", "delete the old build output"],
        "es": ["limpia los artefactos de compilación", "borra la salida vieja de la build"],
        "de": ["räum die Build-Artefakte weg", "lösch die alten Build-Ausgaben"],
        "ja": ["ビルド成果物を掃除して", "古いビルド出力を削除して"],
        "ru": ["удали артефакты сборки", "почисти старые результаты сборки"]}},
    "env_config": {"steps": [("edit", [".env.example"]), ("edit", ["api/shop/settings.py"])], "text": {
        "en": ["add a setting for the payment provider key", "make the smtp host configurable via env vars"],
        "es": ["añade una opción de configuración para la clave del proveedor de pagos", "haz configurable el host smtp por variables de entorno"],
        "de": ["füg eine Einstellung für den Zahlungsanbieter-Schlüssel hinzu", "mach den SMTP-Host per Umgebungsvariable konfigurierbar"],
        "ja": ["決済プロバイダのキー用の設定を追加して", "SMTPホストを環境変数で設定できるようにして"],
        "ru": ["добавь настройку для ключа платёжного провайдера", "сделай smtp-хост настраиваемым через переменные окружения"]}},
    "explain_module": {"steps": [("read", PY), ("read", PY), ("read", ["api/shop/models.py", "api/shop/db.py"])], "text": {
        "en": ["explain how the order flow works", "walk me through the payments code"],
        "es": ["explícame cómo funciona el flujo de pedidos", "recórreme el código de pagos"],
        "de": ["erklär mir, wie der Bestellablauf funktioniert", "geh mit mir den Zahlungscode durch"],
        "ja": ["注文の流れがどう動いているか説明して", "決済のコードを順に解説して"],
        "ru": ["объясни, как устроен процесс заказа", "разбери со мной код платежей"]}},
    "precommit": {"steps": [("write", [".pre-commit-config.yaml"]), ("sh", ["pre-commit install", "pre-commit run --all-files"])],
                  "text": {
        "en": ["set up pre-commit hooks", "add git hooks that run the linters before each commit"],
        "es": ["configura los hooks de pre-commit", "añade hooks de git que pasen los linters antes de cada commit"],
        "de": ["richte pre-commit-Hooks ein", "füg Git-Hooks hinzu, die vor jedem Commit die Linter laufen lassen"],
        "ja": ["pre-commitフックを設定して", "コミット前にリンターを走らせるgitフックを入れて"],
        "ru": ["настрой хуки pre-commit", "добавь git-хуки, которые гоняют линтеры перед коммитом"]}},
    "ci_workflow": {"steps": [("edit", [".github/workflows/ci.yml"])], "text": {
        "en": ["add python 3.13 to the CI matrix", "change the CI workflow to cache dependencies"],
        "es": ["añade python 3.13 a la matriz de CI", "cambia el workflow de CI para cachear dependencias"],
        "de": ["nimm Python 3.13 in die CI-Matrix auf", "ändere den CI-Workflow so, dass Abhängigkeiten gecacht werden"],
        "ja": ["CIのマトリクスにPython 3.13を追加して", "依存関係をキャッシュするようにCIワークフローを変えて"],
        "ru": ["добавь python 3.13 в матрицу CI", "измени CI-воркфлоу, чтобы кэшировались зависимости"]}},
}

NEAR_MISSES: list[dict[str, Any]] = [
    {"id": "go_tests", "lang": "en", "text": "run the test suite", "steps": [("sh", ["go test ./..."])]},
    {"id": "cart_ts_test", "lang": "en", "text": "write unit tests for the cart",
     "steps": [("write", ["web/src/cart/cart.test.ts"]), ("sh", ["npx vitest run"])]},
    {"id": "cargo_update", "lang": "en", "text": "update the dependencies", "steps": [("sh", ["cargo update"]), ("edit", ["tools/cli/Cargo.lock"])]},
    {"id": "vercel_deploy", "lang": "en", "text": "deploy to staging", "steps": [("sh", ["vercel deploy --prebuilt"])]},
    {"id": "prettier", "lang": "en", "text": "format the code", "steps": [("sh", ["npx prettier --write web/src"])]},
    {"id": "eslint", "lang": "en", "text": "fix the lint errors", "steps": [("sh", ["npx eslint web/src"]), ("edit", ["web/src/App.tsx"])]},
    {"id": "cypress", "lang": "en", "text": "run the end-to-end tests", "steps": [("sh", ["npx cypress run"])]},
    {"id": "prisma", "lang": "en", "text": "create a new migration for the model change",
     "steps": [("edit", ["web/prisma/schema.prisma"]), ("sh", ["npx prisma migrate dev"])]},
    {"id": "mongodump", "lang": "en", "text": "back up the database", "steps": [("sh", ["mongodump --out backups/"])]},
    {"id": "journalctl", "lang": "en", "text": "what do the server logs say", "steps": [("sh", ["journalctl -u nginx -n 100"])]},
    {"id": "glab_mr", "lang": "en", "text": "open a pull request for this branch", "steps": [("sh", ["glab mr create --fill"])]},
    {"id": "stash", "lang": "en", "text": "save my changes for later", "steps": [("sh", ["git stash push -m later"])]},
    {"id": "helm", "lang": "en", "text": "deploy it", "steps": [("sh", ["helm upgrade --install shop charts/shop"])]},
    {"id": "docs_translate", "lang": "en", "text": "translate the docs into german", "steps": [("write", ["docs/de/index.md"])]},
    {"id": "readme_badge_ci", "lang": "en", "text": "add a CI badge", "steps": [("edit", [".github/workflows/badge.yml"]), ("sh", ["gh workflow run badge"])]},
    {"id": "es_go_tests", "work": "go_tests", "lang": "es", "text": "ejecuta las pruebas", "steps": [("sh", ["go test ./..."])]},
    {"id": "es_eslint", "work": "eslint", "lang": "es", "text": "corrige los errores del linter", "steps": [("sh", ["npx eslint --fix web/src"])]},
    {"id": "es_pip_audit", "lang": "es", "text": "corrige las vulnerabilidades", "steps": [("sh", ["pip-audit"]), ("edit", ["requirements.txt"])]},
    {"id": "de_vercel", "work": "vercel_deploy", "lang": "de", "text": "deploy auf Staging", "steps": [("sh", ["vercel deploy"])]},
    {"id": "de_mongodump", "work": "mongodump", "lang": "de", "text": "sichere die Datenbank", "steps": [("sh", ["mongodump --gzip"])]},
    {"id": "de_prettier", "work": "prettier", "lang": "de", "text": "formatiere den Code", "steps": [("sh", ["npx prettier --write ."])]},
    {"id": "ja_cypress", "work": "cypress", "lang": "ja", "text": "E2Eテストを実行して", "steps": [("sh", ["npx cypress run --browser chrome"])]},
    {"id": "ja_cargo", "work": "cargo_update", "lang": "ja", "text": "依存関係を更新して", "steps": [("sh", ["cargo update"])]},
    {"id": "ja_journal", "work": "journalctl", "lang": "ja", "text": "サーバーのログを見て", "steps": [("sh", ["journalctl -u shop-api --since today"])]},
    {"id": "ru_glab", "work": "glab_mr", "lang": "ru", "text": "создай PR с этими изменениями", "steps": [("sh", ["glab mr create"])]},
    {"id": "ru_helm", "work": "helm", "lang": "ru", "text": "задеплой на стейджинг", "steps": [("sh", ["helm upgrade shop charts/shop -f staging.yaml"])]},
    {"id": "ru_go_tests", "work": "go_tests", "lang": "ru", "text": "запусти тесты", "steps": [("sh", ["go test -race ./..."])]},
    {"id": "ru_stash", "work": "stash", "lang": "ru", "text": "сохрани изменения на потом", "steps": [("sh", ["git stash"])]},
]
