// The import graph's rules (npm run depcheck, part of npm test). Imports run one way only:
//
//   services/ossn            the `ossn` command (with status, dlq, demo-events): runs the services below
//   services/replay          the rebuild of the read models (`ossn replay`): runs projectors of its own
//   services/projector,
//   services/query,
//   services/pusher          the services: the projector, the query service, the pusher of ship
//                            notifications to partners' receivers (docs/design/osn-2.1.0.md §2)
//   services/domain          parts the processes share (credentials, dead letters)
//   services/config          configuration read from the environment, judged by the adapters that use it
//   services/adapters        Kafka, MongoDB, Redis, partners' receivers (HTTP): the only code that talks
//                            to other servers, and imports their drivers
//   services/plumbing        logging, lifecycle, metrics, the operators' port
//   contracts/, projections/ the bottom: the event contract, the lookups' contract, the read models
//
// A layer imports its own and the layers below it, never one above; nothing imports in a circle;
// the product never imports test/, bench/ or scripts/ (they may import the product). Tests beside
// the code (*.test.ts) may import anything (fakes and helpers under test/, the services they drive).
// What the image ships (bin/ is its entry point).
const product = '^(services|contracts|projections|bin)/';
const test = '\\.test\\.ts$';

/** A rule forbidding `from` (a path pattern) to import any of `to`. */
const forbid = (name, comment, from, to) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: test },
  to: { path: to },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A module reaches itself again through its imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    forbid('product-not-dev', 'The product (what the image ships) never imports test/, bench/ or scripts/.', product, '^(test|bench|scripts)/'),
    {
      name: 'product-no-dev-dependencies',
      comment: 'The image installs the dependencies only (npm ci --omit=dev): the product never imports a devDependency.',
      severity: 'error',
      from: { path: product, pathNot: test },
      to: { dependencyTypes: ['npm-dev'] },
    },
    {
      name: 'drivers-in-adapters',
      comment: 'Only services/adapters/ talks to the servers through their drivers (kafkajs, mongodb, ioredis); the rest uses the adapters and their port types.',
      severity: 'error',
      from: { path: product, pathNot: [test, '^services/adapters/'] },
      to: { path: '(^|/)node_modules/(kafkajs|mongodb|ioredis)/' },
    },
    forbid('bottom-stays-bottom', 'contracts/ and projections/ import nothing of services/.', '^(contracts|projections)/', '^services/'),
    forbid('contracts-below-projections', 'The contracts are the very bottom: they do not import the read models.', '^contracts/', '^projections/'),
    forbid('plumbing-is-below', 'Plumbing imports only plumbing and the bottom.', '^services/plumbing/', '^services/(?!plumbing/)'),
    forbid('adapters-are-below', 'Adapters import adapters, plumbing and the bottom: no configuration, no domain part, no process.', '^services/adapters/', '^services/(config|domain|ossn|replay|projector|query|pusher)/'),
    forbid('config-is-below', 'Configuration imports configuration, adapters, plumbing and the bottom: no domain part, no process.', '^services/config/', '^services/(domain|ossn|replay|projector|query|pusher)/'),
    forbid('domain-is-below', 'Domain parts import domain parts, adapters, plumbing and the bottom: no process.', '^services/domain/', '^services/(ossn|replay|projector|query|pusher)/'),
    forbid('services-below-ossn', 'The rebuild, the projector, the query service and the pusher never import the ossn command.', '^services/(replay|projector|query|pusher)/', '^services/ossn/'),
    forbid('services-below-replay', 'The projector, the query service and the pusher never import the rebuild.', '^services/(projector|query|pusher)/', '^services/replay/'),
    forbid('replay-apart-from-query', 'The rebuild runs projectors, never the query service.', '^services/replay/', '^services/query/'),
    forbid('services-apart', 'The projector and the query service do not import each other.', '^services/projector/', '^services/query/'),
    forbid('services-apart-too', 'The projector and the query service do not import each other.', '^services/query/', '^services/projector/'),
    forbid('pusher-apart-from-projector', 'The pusher reads the read models the projector writes; it never imports the projector.', '^services/pusher/', '^services/projector/'),
    forbid('pusher-is-a-process', 'The pusher is a process of its own, run by the ossn command only: no other service imports it.', '^services/(projector|query|replay)/', '^services/pusher/'),
    {
      name: 'versions-apart',
      comment: 'No version folder of the query service imports another version folder: each version (services/query/versions/<version>/) reads its requests, writes its answers and names its operations, on the shared protocol core, so the next one lands as a folder beside them (docs/development.md).',
      severity: 'error',
      from: { path: '^services/query/versions/([^/]+)/', pathNot: test },
      to: { path: '^services/query/versions/', pathNot: '^services/query/versions/$1/' },
    },
    forbid(
      'v2-core-below-versions',
      'services/query/v2-core/ holds what the 2.x versions (2.0.0, 2.1.0) share: it imports no version folder, so each version stays a folder on it.',
      '^services/query/v2-core/',
      '^services/query/versions/',
    ),
    forbid('shared-layers-know-no-version', 'What every version of the query service shares (the protocol core, the access step, HTTP and its metrics, the limits) imports no version folder: a route names its own metric labels in its config.', '^services/query/(protocol|access|http|rate-limit)/', '^services/query/versions/'),
    {
      name: 'every-folder-a-layer',
      comment: 'Each folder of services/ is one of the layers above; a new one is placed in the table first.',
      severity: 'error',
      from: { path: '^services/(?!(ossn|replay|projector|query|pusher|domain|config|adapters|plumbing)/)' },
      to: {},
    },
    // The same for a module of such a folder that imports nothing but is imported.
    forbid('every-folder-a-layer-imported', 'Each folder of services/ is one of the layers above; a new one is placed in the table first.', '', '^services/(?!(ossn|replay|projector|query|pusher|domain|config|adapters|plumbing)/)'),
    {
      name: 'resolvable',
      comment: 'An import that does not resolve to a file.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Packages are listed (with their kind: npm, npm-dev) but not walked into.
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: an interface imported upward is an arrow upward all the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'], exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
