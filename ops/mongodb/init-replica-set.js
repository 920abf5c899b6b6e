// mongosh script of the one-shot `mongodb-init` (docker-compose.yml, profile cluster): initiates
// the replica set rs-cluster of mongodb-1..3 unless it is initiated already, then waits (at most
// 2 minutes) until it has a primary, so that `ossn setup` finds one.
const members = ['mongodb-1:27017', 'mongodb-2:27017', 'mongodb-3:27017'];
try {
  rs.status();
  print('replica set rs-cluster is initiated already');
} catch (error) {
  if (error.codeName !== 'NotYetInitialized') throw error;
  rs.initiate({ _id: 'rs-cluster', members: members.map((host, i) => ({ _id: i, host })) });
  print('replica set rs-cluster initiated');
}
const deadline = Date.now() + 120_000;
while (!db.hello().primary) {
  if (Date.now() > deadline) {
    print('replica set rs-cluster has no primary 2 minutes after its initiation');
    quit(1);
  }
  sleep(1000);
}
print(`replica set rs-cluster: primary ${db.hello().primary}`);
