// Checks XRPC calls against the AT Protocol lexicons that @atproto/api ships, with the
// protocol's own validator (@atproto/lexicon), for pressroom's driver contract tests.
//
//   node validate.mjs < calls.json
//
// calls.json: [{"method", "nsid", "params", "input", "encoding", "output"}]; the answer
// is one line of JSON: for each call, null when the lexicons accept it, else the reason.
// Run from the directory that holds node_modules (the fixture copies it there).
import { readFileSync } from 'node:fs'

const load = (file) => import(new URL(`node_modules/${file}`, import.meta.url))
const { schemaDict } = await load('@atproto/api/dist/client/lexicons.js')
const { Lexicons, jsonToLex } = await load('@atproto/lexicon/dist/index.js')
const lexicons = new Lexicons(Object.values(schemaDict))

function check(call) {
  const def = lexicons.getDef(call.nsid)
  if (!def) return `no lexicon defines ${call.nsid}`
  const wanted = def.type === 'procedure' ? 'POST' : def.type === 'query' ? 'GET' : null
  if (wanted === null) return `${call.nsid} is a ${def.type}, not an XRPC method`
  if (call.method !== wanted) return `${call.nsid} is a ${def.type}: ${wanted}, not ${call.method}`
  // A query string carries an array parameter as the key repeated (once for one item),
  // as an XRPC server decodes it.
  const params = { ...(call.params ?? {}) }
  for (const [name, spec] of Object.entries(def.parameters?.properties ?? {})) {
    if (spec.type === 'array' && name in params && !Array.isArray(params[name])) {
      params[name] = [params[name]]
    }
  }
  lexicons.assertValidXrpcParams(call.nsid, params)
  if (def.type === 'procedure') {
    const accepts = def.input?.encoding
    if (!accepts) {
      if (call.input != null) return `${call.nsid} takes no body`
    } else if (accepts === 'application/json') {
      if (call.encoding !== 'application/json') return `${call.nsid} takes JSON, not ${call.encoding}`
      lexicons.assertValidXrpcInput(call.nsid, call.input)
      if (call.nsid === 'com.atproto.repo.createRecord') {
        lexicons.assertValidRecord(call.input.collection, call.input.record)
      }
    } else if (accepts !== '*/*' && accepts !== call.encoding) {
      return `${call.nsid} takes ${accepts}, not ${call.encoding}`
    }
  }
  if (call.output != null) lexicons.assertValidXrpcOutput(call.nsid, call.output)
  return null
}

// Bodies come as JSON: blobs and CIDs in their JSON form ({"$link": ...}) become the
// values the validator checks, as a PDS reads them.
const calls = JSON.parse(readFileSync(0, 'utf8')).map((call) => ({
  ...call,
  input: call.input == null ? call.input : jsonToLex(call.input),
  output: call.output == null ? call.output : jsonToLex(call.output),
}))
const results = calls.map((call) => {
  try {
    return check(call)
  } catch (err) {
    return String(err?.message ?? err)
  }
})
process.stdout.write(JSON.stringify(results) + '\n')
