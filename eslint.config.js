// Lint: ESLint's and typescript-eslint's recommended rules over the whole tree; Prettier formats.
// The floors of ARCHITECTURE.md are enforced here: import-x/no-restricted-paths refuses an import
// that runs the wrong way between folders, and import-x/no-cycle refuses a loop of imports.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

const features = ['content', 'analytics', 'seo', 'tracker', 'dashboard', 'webhooks'];
const top = ['./src/cli', './src/app.ts', './src/server.ts', './src/demo.ts'];

/** `target` may import nothing from any of `from`. */
function forbid(target, from, message) {
  return from.map((path) => ({ target, from: path, message }));
}

/** Beside public.ts, a feature's public face for browser code (type-checked without Node's types). */
const browserPublic = { analytics: ['./public-schemas.ts'] };

/** A feature uses another feature only through that feature's public.ts. */
function featureZones() {
  const zones = [];
  for (const feature of features) {
    for (const other of features) {
      if (other === feature) continue;
      zones.push({
        target: `./src/${feature}`,
        from: `./src/${other}`,
        except: ['./public.ts', ...(browserPublic[other] ?? [])],
        message: `a feature reaches ${other}/ only through ${other}/public.ts`,
      });
    }
  }
  return zones;
}

/**
 * Inside analytics, the flows run one way: ingest/ writes page views and queues them, rollups/ sums
 * them, reports/ reads the sums. The shared files beside them (days, measures, rules) import no
 * flow; only the plugin (routes.ts) and the public faces put the flows together.
 */
function analyticsZones() {
  const flow = (name) => `./src/analytics/${name}`;
  return [
    ...forbid(flow('ingest'), [flow('reports')], 'ingest/ accepts page views: it never reads reports/'),
    ...forbid(
      flow('rollups'),
      [flow('ingest'), flow('reports')],
      'rollups/ sums what ingest/ queued and reports/ reads: it imports neither',
    ),
    ...forbid(flow('reports'), [flow('ingest')], 'reports/ reads what rollups/ wrote, never the write path'),
    ...forbid(
      './src/analytics/!(public|public-schemas|routes).ts',
      [flow('ingest'), flow('rollups'), flow('reports')],
      'a shared file of analytics/ imports no flow folder (only routes.ts and the public faces do)',
    ),
    {
      target: top,
      from: './src/analytics',
      except: ['./public.ts'],
      message: 'app.ts, server.ts and the CLI reach analytics/ only through analytics/public.ts',
    },
  ];
}

const floorZones = [
  ...forbid(
    './src/config.ts',
    [
      './src/errors.ts',
      './src/db',
      './src/http',
      './src/projects',
      ...features.map((f) => `./src/${f}`),
      ...top,
    ],
    'config.ts is the ground floor: it imports nothing of Folio',
  ),
  ...forbid(
    './src/errors.ts',
    ['./src/db', './src/http', './src/projects', ...features.map((f) => `./src/${f}`), ...top],
    'errors.ts is the ground floor: it imports nothing of Folio',
  ),
  ...forbid(
    './src/db',
    ['./src/http', './src/projects', ...features.map((f) => `./src/${f}`), ...top],
    'db/ is below http/, projects/ and the features',
  ),
  {
    target: './src/db/migrations',
    from: './src',
    except: ['./db'],
    message: 'a migration is frozen: it imports nothing outside db/ (what it needs, it carries)',
  },
  ...forbid(
    './src/http',
    ['./src/projects', ...features.map((f) => `./src/${f}`), ...top],
    'http/ is below projects/ and the features: what it needs from them is passed in by app.ts',
  ),
  ...forbid(
    './src/projects',
    [...features.map((f) => `./src/${f}`), ...top],
    'projects/ is below the features',
  ),
  ...forbid(
    features.map((f) => `./src/${f}`),
    top,
    'only the CLI, server.ts and app.ts put the features together',
  ),
  ...featureZones(),
  ...analyticsZones(),
];

export default tseslint.config(
  // Fixtures are other tools' files (a blog's own config), read as data and never run here.
  { ignores: ['node_modules/', 'data/', '.bench/', 'coverage/', 'test/content/fixtures/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })],
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: floorZones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // An ESM import of node:http reads all its exports, the lazy WebSocket among them, which loads
      // Node's fetch (undici) into a server that never fetches: require it (createRequire) instead.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        ...['node:http', 'http'].map((name) => ({
          name,
          allowTypeImports: true,
          message: "require it with createRequire: an ESM import of node:http loads Node's fetch (undici)",
        })),
      ],
      // A function past ~80 lines usually holds two ideas: split it, or say why not in the reason
      // of a disable comment.
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      // Fastify's request.routeOptions builds a new object at every read: hooks read the route
      // once per request through routeOf (http/route-of.ts).
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='routeOptions']",
          message:
            'read the route with routeOf(request) (http/route-of.ts): routeOptions is rebuilt at every read',
        },
      ],
    },
  },
  {
    files: ['src/http/route-of.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
