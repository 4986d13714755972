// Checks web/sdk/sluice.d.ts (and web/sdk/types/, which it re-exports) against the SDK itself: imports web/sdk/sluice.mjs under node and
// compares, both ways, the module's exports, the default export's keys, and each exported
// class's public members (methods and getters on its prototypes, fields on an instance made
// with stand-in arguments, statics) with what the declarations say. tsc alone cannot see a
// declaration the JavaScript lost, or a method added without one.
//   node scripts/check-sdk-exports.mjs TYPESCRIPT_DIR   (scripts/check-sdk-types.sh runs it)
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const declarations = path.join(repo, 'web/sdk/sluice.d.ts');
// sluice.d.ts and the files under web/sdk/types/ it re-exports.
const declarationsDir = path.join(repo, 'web/sdk') + path.sep;
const ts = createRequire(import.meta.url)(process.argv[2] || 'typescript');

// Public in JavaScript but not API: Emitter's dispatch, used by the SDK's own classes.
const INTERNAL = new Set(['emit']);
const isPublic = (name) => !name.startsWith('_') && !INTERNAL.has(name);
const problems = [];
const compare = (what, declared, actual, optional = new Set()) => {
  for (const name of declared) {
    if (!actual.has(name) && !optional.has(name)) problems.push(`${what}: ${name} is declared but not in the JavaScript`);
  }
  for (const name of actual) {
    if (!declared.has(name)) problems.push(`${what}: ${name} is in the JavaScript but not declared`);
  }
};

// MARK: what the declarations say

const program = ts.createProgram([declarations], {strict: true, noEmit: true, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
                                                  types: []});
const checker = program.getTypeChecker();
const source = program.getSourceFile(declarations);
const moduleSymbol = checker.getSymbolAtLocation(source);
const fromTheDeclarations = (symbol) => (symbol.declarations || [])
  .some((d) => path.resolve(d.getSourceFile().fileName).startsWith(declarationsDir));
// `export default Sluice` is an alias of the declared const: followed to it.
const resolve = (s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
const valueExports = new Map(checker.getExportsOfModule(moduleSymbol)
  .filter((s) => resolve(s).flags & ts.SymbolFlags.Value)
  .map((s) => [s.escapedName, resolve(s)]));

// A type's members declared in the SDK's declarations (not inherited from the DOM's EventTarget or Error),
// the optional ones apart, and the names it inherits from lib (which the JavaScript has too).
function members(type) {
  const own = new Set();
  const optional = new Set();
  const inherited = new Set();
  for (const symbol of checker.getPropertiesOfType(type)) {
    const name = symbol.escapedName;
    if (!fromTheDeclarations(symbol)) { inherited.add(name); continue; }
    own.add(name);
    if (symbol.flags & ts.SymbolFlags.Optional) optional.add(name);
  }
  return {own, optional, inherited};
}

// MARK: what the JavaScript has

const sdk = await import(pathToFileURL(path.join(repo, 'web/sdk/sluice.mjs')).href);
compare('exports', new Set(valueExports.keys()), new Set(Object.keys(sdk)));

const defaultType = checker.getTypeOfSymbolAtLocation(valueExports.get('default'), source);
compare('the default export', members(defaultType).own, new Set(Object.keys(sdk.default)));
if (globalThis.Sluice !== sdk.default) problems.push('importing sluice.mjs does not set globalThis.Sluice to its default export');

// Stand-in arguments: enough for each constructor to run (it only stores them).
const standIns = {
  SluiceError: [1004, 'Stream not found', 'STREAM_NOT_FOUND', {}],
  Session: [{}, {}],
  Stream: [{}, 'play', 'name', {}, {}],
  Call: [{}, {id: 'c1', from: 'a', to: 'b', direction: 'outgoing', status: null, video: true, audio: true, custom: {}}],
};
const stopAt = new Set([Object.prototype, EventTarget.prototype, Error.prototype, Function.prototype]);

for (const [name, symbol] of valueExports) {
  if (!(symbol.flags & ts.SymbolFlags.Class)) continue;
  const cls = sdk[name];
  if (typeof cls !== 'function' || !standIns[name]) {
    problems.push(`class ${name}: not a class in the JavaScript, or no stand-in arguments here`);
    continue;
  }
  const instanceType = checker.getDeclaredTypeOfSymbol(symbol);
  const declared = members(instanceType);
  const actual = new Set();
  const instance = new cls(...standIns[name]);
  for (const key of Object.getOwnPropertyNames(instance)) actual.add(key);
  for (let proto = cls.prototype; proto && !stopAt.has(proto); proto = Object.getPrototypeOf(proto)) {
    for (const key of Object.getOwnPropertyNames(proto)) if (key !== 'constructor') actual.add(key);
  }
  const publicActual = new Set([...actual].filter((n) => isPublic(n) && !declared.inherited.has(n)));
  compare(`class ${name}`, declared.own, publicActual, declared.optional);

  const staticType = checker.getTypeOfSymbolAtLocation(symbol, source);
  const declaredStatics = new Set([...members(staticType).own].filter((n) => n !== 'prototype'));
  const actualStatics = new Set(Object.getOwnPropertyNames(cls).filter((n) => !['length', 'name', 'prototype'].includes(n) && isPublic(n)));
  compare(`class ${name} (static)`, declaredStatics, actualStatics);
}

if (problems.length) {
  console.error(`check-sdk-exports: sluice.d.ts and the SDK differ:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-sdk-exports: sluice.d.ts matches the SDK (exports: ${[...valueExports.keys()].join(', ')})`);
