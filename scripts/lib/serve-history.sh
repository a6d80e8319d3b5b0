# Sourced by the by-hand client scripts (generated-clients.sh, postman-newman.sh), after they set
# PROJECT, HISTORY and WORK and trap a cleanup that kills SERVER_PID: builds, imports the ECB
# history into a data directory of WORK, makes a business key (KEY), and starts `node dist/main.js`
# on a free loopback port (BASE_URL), returning once it answers /v1/health.
echo "== build, rates, key"
(cd "$PROJECT" && npm run -s build)
export DATA_DIR="$WORK/data"
(cd "$PROJECT" && npm run -s admin -- rates import "$HISTORY" >/dev/null)
KEY="$(cd "$PROJECT" && npm run -s admin -- key create --plan business | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).key))')"
PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
BASE_URL="http://127.0.0.1:$PORT"
(cd "$PROJECT" && PORT="$PORT" exec node dist/main.js >"$WORK/server.log" 2>&1) &
SERVER_PID=$!
for _ in $(seq 1 100); do
  curl -fs "$BASE_URL/v1/health" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "$BASE_URL/v1/health" >/dev/null || { cat "$WORK/server.log"; exit 1; }
echo "server on $BASE_URL"
