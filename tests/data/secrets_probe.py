"""A hand-written probe of credential shapes by class, and of benign look-alikes.

Written before the rules that read these classes (first-sight figures in docs/privacy.md).
Each case is ``(class, line, secret)``: ``secret`` must be gone wherever ``line`` is
placed (``tests/_secret_shapes.PLACEMENTS``: prompt, tool command, tool output, file,
answer), as written and JSON-encoded. ``BENIGN`` lines must be kept byte for byte.

Classes:
1 ``positional`` — a password as a bare positional argument, or echoed into a key tool;
2 ``prose`` — a password said in a sentence, in English and other languages;
3 ``connstr`` — JDBC/ODBC/ADO/Oracle connection strings;
4 ``code`` — literals in source code: DSNs, driver constructors, decoded key literals;
5 ``context`` — keys with no vendor prefix whose only signal is their context;
6 ``vendor`` — vendor formats, whole tokens, webhook paths, cookies;
7 ``dsl`` — build DSLs and JSON/YAML value fields whose sibling names a secret.
"""

from __future__ import annotations

CASES: list[tuple[str, str, str]] = [
    # 1 positional arguments and passphrases piped into key tools
    ("positional", "htpasswd -b -c /etc/nginx/.htpasswd admin Kv8!pQz2rT", "Kv8!pQz2rT"),
    ("positional", "htpasswd -bB ./auth/htpasswd registry Wint3r#Sun", "Wint3r#Sun"),
    ("positional", "htpasswd -nbB deploy 'Xy7$kLm2Pq' > users", "Xy7$kLm2Pq"),
    ("positional", "mosquitto_passwd -b /etc/mosquitto/passwd sensor01 Mqtt9Pass!x",
     "Mqtt9Pass!x"),
    ("positional", "cqlsh -u cassandra -p Cass4ndra!7 10.0.0.4", "Cass4ndra!7"),
    ("positional", "cypher-shell -a bolt://localhost:7687 -u neo4j -p 'n3o4j_Gr4ph'",
     "n3o4j_Gr4ph"),
    ("positional", "ipmitool -I lanplus -H 10.1.1.9 -U ADMIN -P Ipm1Secr3t chassis status",
     "Ipm1Secr3t"),
    ("positional", "nmcli dev wifi connect HomeNet password Wifi-Pa55-2024", "Wifi-Pa55-2024"),
    ("positional", "nmcli device wifi connect \"Office 5G\" password 'c0ffee&Cake'",
     "c0ffee&Cake"),
    ("positional", "wpa_passphrase CafeGuest Lungo7Espresso9 >> wpa.conf", "Lungo7Espresso9"),
    ("positional", "net user svc_backup B4ckup!Pw /add /domain", "B4ckup!Pw"),
    ("positional", "echo 'Tiger-Lily-42' | ssh-add ~/.ssh/id_ed25519", "Tiger-Lily-42"),
    ("positional", "echo \"gpgPhr4se!x\" | gpg --batch --yes --passphrase-fd 0 -d a.gpg",
     "gpgPhr4se!x"),
    ("positional", "printf 'K3rb3ros_pw\\n' | kinit alice@CORP.EXAMPLE", "K3rb3ros_pw"),
    ("positional", "db2 connect to SAMPLE user db2inst1 using Db2Inst!Pw", "Db2Inst!Pw"),
    ("positional", "psql -c \"ALTER USER app WITH PASSWORD 'Pg4pp$ecret'\"", "Pg4pp$ecret"),
    ("positional", "mysql -e \"CREATE USER 'web'@'%' IDENTIFIED BY 'W3bUs3r!pw';\"",
     "W3bUs3r!pw"),
    # 2 prose, several languages, prompts and answers
    ("prose", "the password for the staging database is Gr33nTea!99, please check it",
     "Gr33nTea!99"),
    ("prose", "Le mot de passe est Soleil2024! pour le compte admin", "Soleil2024!"),
    ("prose", "mot de passe : Fromage#77b", "Fromage#77b"),
    ("prose", "La contraseña del servidor es Perro_Azul_88", "Perro_Azul_88"),
    ("prose", "Das Passwort lautet Haus4Baum! für den Server", "Haus4Baum!"),
    ("prose", "Kennwort: Zug2Bahn$9", "Zug2Bahn$9"),
    ("prose", "A senha do banco é Cafe!Leite42", "Cafe!Leite42"),
    ("prose", "use pw m00nlight7 for the vpn", "m00nlight7"),
    ("prose", "I reset it; your new password is now Q7w!e9r2T.", "Q7w!e9r2T"),
    ("prose", "login as admin with password `Adm1n-2025`", "Adm1n-2025"),
    ("prose", "The API key you gave me, 9f2c7a1e5b3d8f60a4c2e7b91d3f5a08, works now.",
     "9f2c7a1e5b3d8f60a4c2e7b91d3f5a08"),
    ("prose", "wachtwoord is Fiets123!", "Fiets123!"),
    ("prose", "пароль: Zima2024!x", "Zima2024!x"),
    # 3 connection strings
    ("connstr", "jdbc:sqlserver://db.corp:1433;databaseName=erp;user=sa;password=Erp!2024x;"
     "encrypt=true", "Erp!2024x"),
    ("connstr", "jdbc:oracle:thin:scott/T1ger0ra@//ora.corp:1521/ORCLPDB1", "T1ger0ra"),
    ("connstr", "Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql1;Uid=app;"
     "Pwd={Od8c;Pa55};", "Od8c;Pa55"),
    ("connstr", "DSN=warehouse;UID=etl;PWD=Etl2Load!;", "Etl2Load!"),
    ("connstr", "url: jdbc:postgresql://pg:5432/app?user=app&password=PgApp_77x&ssl=true",
     "PgApp_77x"),
    ("connstr", "jdbc:db2://db2host:50000/SAMPLE:user=db2admin;password=Db2Adm1n!;",
     "Db2Adm1n!"),
    ("connstr", "Server=tcp:x.database.windows.net,1433;User ID=admin;Password=\"Az$ql-Pw9\";",
     "Az$ql-Pw9"),
    ("connstr", "CONNECT system/Manag3r_01@//localhost:1521/XEPDB1", "Manag3r_01"),
    ("connstr", "expdp hr/Hr_Exp0rt9@prod schemas=HR directory=DP", "Hr_Exp0rt9"),
    ("connstr", "spring.datasource.url=jdbc:mysql://my:3306/shop?user=shop&password=Sh0p!"
     "Pass", "Sh0p!Pass"),
    ("connstr", "Endpoint=sb://bus.servicebus.windows.net/;SharedAccessKeyName=Root;"
     "SharedAccessKey=q8XrT2mV9pL4wZ7bN1cY5dF3gH6jK0aS=", "q8XrT2mV9pL4wZ7bN1cY5dF3gH6jK0aS="),
    # 4 source code
    ("code", 'db, err := sql.Open("mysql", "root:G0lang!pw@tcp(127.0.0.1:3306)/app")',
     "G0lang!pw"),
    ("code", 'dsn := "appuser:Dsn_Pa55w0rd@tcp(db:3306)/orders?parseTime=true"',
     "Dsn_Pa55w0rd"),
    ("code", "$pdo = new PDO('mysql:host=localhost;dbname=shop', 'shop', 'Php!Pd0pw');",
     "Php!Pd0pw"),
    ("code", '$conn = mysqli_connect("localhost", "root", "My5qli#pw", "blog");',
     "My5qli#pw"),
    ("code", 'Connection c = DriverManager.getConnection(url, "sa", "J4va$ecret");',
     "J4va$ecret"),
    ("code", "const sequelize = new Sequelize('shop', 'admin', 'S3qu3lize!', { host });",
     "S3qu3lize!"),
    ("code", 'server.login("alerts@corp.example", "smtpApp9pw")', "smtpApp9pw"),
    ("code", "r = requests.get(url, auth=('api', 'Req7Auth!x'))", "Req7Auth!x"),
    ("code", 'SECRET_KEY = bytes.fromhex("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b")',
     "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"),
    ("code", 'var jwtKey = []byte("my-s3cr3t-signing-k3y")', "my-s3cr3t-signing-k3y"),
    ("code", "signing_key = base64.b64decode('c2VjcmV0LWtleS1mb3ItaG1hYy0yMDI0')",
     "c2VjcmV0LWtleS1mb3ItaG1hYy0yMDI0"),
    ("code", 'const hmacSecret = Buffer.from("4f3c2b1a9e8d7c6b5a4f3e2d1c0b9a88", "hex");',
     "4f3c2b1a9e8d7c6b5a4f3e2d1c0b9a88"),
    ("code", 'byte[] key = Convert.FromBase64String("bXlTdXBlclNlY3JldEtleTEyMw==");',
     "bXlTdXBlclNlY3JldEtleTEyMw=="),
    ("code", "token = jwt.encode(payload, 'Hs256-S1gn!ng', algorithm='HS256')",
     "Hs256-S1gn!ng"),
    # 5 keys known by context only
    ("context", "SECRET_KEY_BASE=8e3f1a9c2b7d4e6f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f",
     "8e3f1a9c2b7d4e6f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f"),
    ("context", "app.secret_key = 'dev-4a7Bq9Xz2Lm8'", "dev-4a7Bq9Xz2Lm8"),
    ("context", "app.config['SECRET_KEY'] = 'fl4sk-c0nfig-k3y'", "fl4sk-c0nfig-k3y"),
    ("context", "app.secret_key = b'_5#y2L\"F4Q8z\\n\\xec]/'", "_5#y2L"),
    ("context", "HONEYCOMB_WRITEKEY=hcaik_01hq4zk2v8x7y6w5t4s3r2q1p0",
     "hcaik_01hq4zk2v8x7y6w5t4s3r2q1p0"),
    ("context", "NEW_RELIC_INSERT_KEY: Nrii7aBcDeFgHiJkLmNoPqRsTuVwX2",
     "Nrii7aBcDeFgHiJkLmNoPqRsTuVwX2"),
    ("context", "Unseal Key 1: 4mQv3Kx9Lb7Pz2Rt8Wn5Yc1Hd6Fg0Js3Aq9Ek2Mu7Vi4=",
     "4mQv3Kx9Lb7Pz2Rt8Wn5Yc1Hd6Fg0Js3Aq9Ek2Mu7Vi4="),
    ("context", "Recovery Key 3: Zx8Cv7Bn6Mq5Wr4Et3Yu2Io1Pa9Sd8Fg7Hj6Kl5=",
     "Zx8Cv7Bn6Mq5Wr4Et3Yu2Io1Pa9Sd8Fg7Hj6Kl5="),
    ("context", "vault login - <<< 's.Qx7Lm2Pz9Rt4Wn8Yc3Kb6'", "s.Qx7Lm2Pz9Rt4Wn8Yc3Kb6"),
    ("context", "read -r API_TOKEN <<< \"Tk9xLm2Qp7Rz4Wv8Ny3B\"", "Tk9xLm2Qp7Rz4Wv8Ny3B"),
    ("context", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\n"
     "Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIHq\nz8Lw==\nPrivate-Lines: 1\n"
     "AAAAIF7c3Gq9Lx2Pb8Rm4Tn6Vw1Yz5Ka0Hd3Jf7Sg9Qe2Wr\n"
     "Private-MAC: 5d4f0a9b8c7e6d5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f",
     "5d4f0a9b8c7e6d5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f"),
    ("context", "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"rsa-key\"\n"
     "P2/56wAAAi4AAAA3aWYtbW9kbntzaWdue3JzYS1wa2NzMS1zaGExfSxlbmNyeXB0e3JzYS1w\n"
     "---- END SSH2 ENCRYPTED PRIVATE KEY ----",
     "P2/56wAAAi4AAAA3aWYtbW9kbntzaWdue3JzYS1wa2NzMS1zaGExfSxlbmNyeXB0e3JzYS1w"),
    ("context", "[Interface]\nAddress = 10.8.0.2/24\n"
     "PresharedKey = 9xQ2Lm7Pz4Rt8Wn3Yc6Kb1Hd5Fg0Js2Aq7Ek9Mu4Vi=",
     "9xQ2Lm7Pz4Rt8Wn3Yc6Kb1Hd5Fg0Js2Aq7Ek9Mu4Vi="),
    ("context", 'os.environ["OPENAI_API_KEY"] = "proj9Xq2Lm7Pz4Rt8Wn3Yc6Kb"',
     "proj9Xq2Lm7Pz4Rt8Wn3Yc6Kb"),
    # 6 vendor formats, whole tokens, webhook paths, cookies
    ("vendor", "maps key AIzaSyD3x9Kq2Lm7Pz4Rt8Wn3Yc6Kb1Hd5Fg0Js",
     "AIzaSyD3x9Kq2Lm7Pz4Rt8Wn3Yc6Kb1Hd5Fg0Js"),
    ("vendor", "DATABRICKS_HOST=x; token dapi4f3c2b1a9e8d7c6b5a4f3e2d1c0b9a88",
     "dapi4f3c2b1a9e8d7c6b5a4f3e2d1c0b9a88"),
    ("vendor", "jira: ATATT3xFfGF0Qx7Lm2Pz9Rt4Wn8Yc3Kb6Hd1Fg5Js0Aq=8E2C1A",
     "ATATT3xFfGF0Qx7Lm2Pz9Rt4Wn8Yc3Kb6Hd1Fg5Js0Aq"),
    ("vendor", "curl -H 'Authorization: Bearer ya29.a0AfH6SMBx7Lm2Pz9Rt4Wn8Yc3Kb6Hd1Fg5Js0Aq'",
     "a0AfH6SMBx7Lm2Pz9Rt4Wn8Yc3Kb6Hd1Fg5Js0Aq"),
    ("vendor", "export SLACK=xoxp-2210987654-3321098765-4432109876-"
     "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
     "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("vendor", "stripe listen --api-key sk_test_51Hx7Lm2Pz9Rt4Wn8Yc3Kb6Hd1Fg5Js0Aq7Ek2Mu4Vi9",
     "51Hx7Lm2Pz9Rt4Wn8Yc3Kb6Hd1Fg5Js0Aq7Ek2Mu4Vi9"),
    ("vendor", "curl -X POST https://hooks.zapier.com/hooks/catch/4821937/3kq9xzb/ -d @p.json",
     "3kq9xzb"),
    ("vendor", "curl https://maker.ifttt.com/trigger/door_open/with/key/dQ7xLm2Pz9Rt4Wn8Yc3Kb6",
     "dQ7xLm2Pz9Rt4Wn8Yc3Kb6"),
    ("vendor", "POST https://outlook.office.com/webhook/a1b2/IncomingWebhook/"
     "7f3e9c2a1b8d4e6f0a5c3b7d9e1f2a4c/1c2d3e4f", "7f3e9c2a1b8d4e6f0a5c3b7d9e1f2a4c"),
    ("vendor", "Cookie: _ga=GA1.2.3; connect.sid=s%3AQx7Lm2Pz9Rt4Wn8Y.c3Kb6Hd1Fg5Js0Aq7Ek2Mu",
     "Qx7Lm2Pz9Rt4Wn8Y"),
    ("vendor", "my browser cookie is sessionid=k9x2lm7pz4rt8wn3yc6kb1hd5fg0js2a, use it",
     "k9x2lm7pz4rt8wn3yc6kb1hd5fg0js2a"),
    ("vendor", "Cookie: laravel_session=eyJpdiI6Ik1Xd3pZVzVsIiwidmFsdWUiOiJ4eXoifQ%3D%3D",
     "eyJpdiI6Ik1Xd3pZVzVsIiwidmFsdWUiOiJ4eXoifQ"),
    # 7 build DSLs and sibling value fields
    ("dsl", "    storePassword \"andr0id-Rel3ase\"", "andr0id-Rel3ase"),
    ("dsl", "        keyPassword 'K3yAlias!pw'", "K3yAlias!pw"),
    ("dsl", "credentials {\n    username \"deployer\"\n    password \"Nexus#Up10ad\"\n}",
     "Nexus#Up10ad"),
    ("dsl", "signingConfigs { release { storePassword = \"Kts-St0re-pw\" } }", "Kts-St0re-pw"),
    ("dsl", "requirepass R3d1sRequ1re!", "R3d1sRequ1re!"),
    ("dsl", '"outputs": {"db_password": {"sensitive": true, "type": "string", '
     '"value": "Tf5tate!Pw"}}', "Tf5tate!Pw"),
    ("dsl", '{"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", '
     '"Value": "Ssm!Param9"}}', "Ssm!Param9"),
    ("dsl", "env:\n  - name: DB_PASSWORD\n    value: \"K8sEnv!Pw7\"", "K8sEnv!Pw7"),
    ("dsl", "- name: API_TOKEN\n  value: Tk7Yaml-Val9", "Tk7Yaml-Val9"),
    ("dsl", '{"key": "SMTP_PASSWORD", "value": "Smtp!Relay4", "enabled": true}', "Smtp!Relay4"),
    ("dsl", "password = credentials('nexus') ?: 'Gr00vy!Fallback'", "Gr00vy!Fallback"),
]

BENIGN: list[str] = [
    # references piped into --password-stdin, here-strings of references
    'echo "$CR_PAT" | docker login ghcr.io -u octocat --password-stdin',
    "echo $REGISTRY_PASSWORD | helm registry login -u bot --password-stdin reg.example",
    "printf '%s' \"${NPM_TOKEN}\" | npm login --auth-type=legacy",
    "echo ${{ secrets.DOCKERHUB_TOKEN }} | docker login -u me --password-stdin",
    'aws ecr get-login-password | docker login --username AWS --password-stdin 1234.dkr.ecr',
    "gh auth login --with-token < ~/.config/gh/token.txt",
    # public vendor object ids
    "Created customer cus_NffrFeUfNV2Hib8x9ZqW3a for the order",
    "payment_intent pi_3MtwBwLkdIwHu7ix28a3tqPa succeeded",
    "Clerk user user_2NNEqL2nrIRdJ194ndJqAHwEfxC signed in",
    "subscription sub_1MowQVLkdIwHu7ixeRlqHVzs renewed",
    "price_1MoBy5LkdIwHu7ixZhnattbh is the monthly plan",
    "org_2Ab9XyQ7Lm2Pz4Rt8Wn3Yc6Kb joined",
    "OpenAI batch batch_6789AbCdEfGhIjKlMnOpQr finished, file file-Xq2Lm7Pz4Rt8Wn3Yc6Kb",
    # base64 decoded in ordinary commands, base64 images
    'echo "SGVsbG8gV29ybGQhIFRoaXMgaXMgYSB0ZXN0IHN0cmluZw==" | base64 -d',
    "base64 --decode <<< 'eyJuYW1lIjoiYWxpY2UiLCJyb2xlIjoiYWRtaW4ifQ=='",
    "echo dGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcw== | base64 -D > out.txt",
    '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlE'
    'QVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">',
    "kubectl get secret app -o jsonpath='{.data.username}' | base64 -d",
    # hashes, digests, lockfile integrity
    "yarn.lock: integrity sha512-Ry8NpDhU7DrNqNpPZ4e8vLrjIw0Z6k9vKqZqR7XlXo6fP3Z1hT2Y9bQ==",
    'checksum = "3b1c2f1a8e5d7c9b0a4e6f2d8c1b3a5e7f9d0c2b4a6e8f1d3c5b7a9e0f2d4c6b"',
    "github.com/stretchr/testify v1.8.4 h1:CcVxjf3Q8PM0mHUKJCdn+eZZtm5yQwehR5yeSVQQcUk=",
    "--hash=sha256:4b1f7e2c9d8a6b5c3e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f",
    "git checkout 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "ETag: \"33a64df551425fcc55e4d42a148795d9f25f89d4\"",
    "x-amzn-RequestId: 7f3e9c2a-1b8d-4e6f-0a5c-3b7d9e1f2a4c",
    "_id: ObjectId(\"507f1f77bcf86cd799439011\")",
    "ulid 01HQ4ZK2V8X7Y6W5T4S3R2Q1P0 assigned",
    # placeholders and references
    "DATABASE_URL=postgres://user:${DB_PASSWORD}@db:5432/app",
    "password: ${DB_PASSWORD:-postgres}",
    "db_password = var.db_password",
    'storePassword System.getenv("STORE_PASSWORD")',
    "storePassword keystoreProperties['storePassword']",
    "app.secret_key = os.urandom(24)",
    'app.config["SECRET_KEY"] = os.environ["SECRET_KEY"]',
    "SECRET_KEY_BASE=$(bin/rails secret)",
    '$pdo = new PDO($dsn, $user, $pass);',
    "conn = DriverManager.getConnection(url, user, password);",
    'server.login(user, os.environ["SMTP_PASSWORD"])',
    "key = bytes.fromhex(digest)",
    '{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "pw"}}}',
    '"instance_type": {"sensitive": false, "type": "string", "value": "t3.micro"}',
    "- name: LOG_LEVEL\n  value: debug",
    "Password=<your-password>;User ID=sa;",
    "jdbc:oracle:thin:@//ora.corp:1521/ORCLPDB1",
    "sqlplus /nolog",
    "Cookie: theme=dark; lang=en-US",
    "ssh -p 2222 deploy@example.com",
    "docker run -p 8080:80 nginx:1.25",
    "psql -U postgres -p 5432 -h localhost app",
    "mkdir -p build/out && git add -p src/app.py",
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "nmcli dev wifi connect HomeNet --ask",
    "unset GITHUB_TOKEN AWS_SECRET_ACCESS_KEY",
    "printenv | grep -i token",
    'echo "${#OPENAI_API_KEY} characters"',
    # prose about passwords, in several languages
    "The password is required and must be at least 12 characters.",
    "the password is stored in 1Password under 'prod db'",
    "Le mot de passe est incorrect, réessayez.",
    "Das Passwort ist abgelaufen.",
    "La contraseña es obligatoria.",
    "the api key is in the .env file, not in the repo",
    "Your token is valid for 30 days.",
    "the secret key is rotated every 90 days by the cron job",
    "AKIAIOSFODNN7EXAMPLE is the documented example key id",
    "https://hooks.zapier.com/hooks/catch/<account>/<hook>/",
    "See https://github.com/org/repo/settings/hooks for the webhook list",
    "ALTER USER app WITH PASSWORD :'new_password';",
    "CREATE USER web IDENTIFIED BY VALUES ':hash';",
    "sessionid cookie is HttpOnly",
]
