// A local AT Protocol network for pressroom's Bluesky tests, one part per process so
// the PDS can be killed and started again on its own data while the PLC directory
// (which keeps its operations in memory) lives on:
//
//   node network.mjs plc <port>
//   node network.mjs pds <port> <plcUrl> <dataDir> [<appviewUrl> <appviewDid>]
//   node network.mjs appview <port> <plcUrl> <postgresUrl> <pdsPort>
//
// It runs from the directory that holds its node_modules (the fixture copies it there).
// Each prints one JSON line ({"url": ...}) once it answers, and stops on SIGTERM.
// The PDS also answers POST /_test/kill-after-next-write[?skip=N]: the next createRecord,
// putRecord or applyWrites (after N more that are answered as usual) is carried out and
// committed, then the process SIGKILLs itself before a byte of the answer leaves, which
// is what a crash between the write and the answer looks like to a client.
// It answers GET /_test/seq with the last event of its firehose ({"seq": N}).
//
// The AppView (@atproto/bsky, dev-env's TestBsky) keeps its index in PostgreSQL (the
// schema "appview" of the database given) and reads the PDS's firehose, from its first
// event, at ws://localhost:<pdsPort>; started with the AppView's URL and DID, the PDS
// passes app.bsky.* reads to it. It prints {"url", "did"} and answers
// POST /_test/process-all?seq=N once everything up to the PDS's event N is indexed (dev-env's
// TestNetwork.processFullSubscription, across two processes). Bluesky's bsync (mutes,
// notifications) is not started: nothing here reads it.
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { Secp256k1Keypair } from '@atproto/crypto'
// dev-env's index loads the AppView and Ozone too (8 s here): take only the parts used.
const devEnv = (file) => import(new URL(`node_modules/@atproto/dev-env/dist/${file}`, import.meta.url))
const { TestPds } = await devEnv('pds.js')
const { TestPlc } = await devEnv('plc.js')
const { mockNetworkUtilities, mockResolvers } = await devEnv('util.js')
import * as ui8 from 'uint8arrays'

const [mode, portArg, ...rest] = process.argv.slice(2)
const port = Number(portArg)

const WRITES = [
  '/xrpc/com.atproto.repo.createRecord',
  '/xrpc/com.atproto.repo.putRecord',
  '/xrpc/com.atproto.repo.applyWrites',
]
let killArmed = false
let killSkip = 0

// Requests under /_test/ that a part answers itself, by path; set before it starts.
const testRoutes = {}

function installKillSwitch() {
  const emit = http.Server.prototype.emit
  http.Server.prototype.emit = function (event, req, res) {
    if (event === 'request') {
      const route = testRoutes[req.url.split('?')[0]]
      if (route) {
        route(new URL(req.url, 'http://part').searchParams).then(
          (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
          (err) => res.writeHead(500).end(String(err)),
        )
        return true
      }
      if (req.method === 'POST' && req.url.startsWith('/_test/kill-after-next-write')) {
        killArmed = true
        killSkip = Number(new URL(req.url, 'http://pds').searchParams.get('skip') || 0)
        res.writeHead(204).end()
        return true
      }
      if (killArmed && req.method === 'POST' && WRITES.some((w) => req.url.startsWith(w))) {
        if (killSkip > 0) {
          killSkip -= 1
          return emit.apply(this, arguments)
        }
        killArmed = false
        res.writeHead = () => {
          process.kill(process.pid, 'SIGKILL')
        }
      }
    }
    return emit.apply(this, arguments)
  }
}

async function pdsKeys(dataDir) {
  const file = path.join(dataDir, 'keys.json')
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'))
  const rotation = await Secp256k1Keypair.create({ exportable: true })
  const keys = {
    plcRotationKeyK256PrivateKeyHex: ui8.toString(await rotation.export(), 'hex'),
    recoveryDidKey: (await Secp256k1Keypair.create()).did(),
  }
  fs.writeFileSync(file, JSON.stringify(keys))
  return keys
}

async function startAppview(plcUrl, postgresUrl, pdsPort) {
  const { TestBsky } = await devEnv('bsky.js')
  const bsky = await TestBsky.create({
    port,
    plcUrl,
    repoProvider: `ws://localhost:${pdsPort}`,
    dbPostgresUrl: postgresUrl,
    dbPostgresSchema: 'appview',
    bsyncUrl: 'http://localhost:1', // never asked: its subscription is stopped below
  })
  await bsky.bsyncSub.destroy()
  // Handles under .test resolve at the PDS, as dev-env's TestNetwork has them.
  const pdsUrl = `http://localhost:${pdsPort}`
  const pds = {
    url: pdsUrl,
    port: Number(pdsPort),
    ctx: { cfg: { service: { publicUrl: pdsUrl }, identity: { serviceHandleDomains: ['.test'] } } },
  }
  mockResolvers(bsky.ctx.idResolver, pds)
  mockResolvers(bsky.dataplane.idResolver, pds)
  testRoutes['/_test/process-all'] = async (params) => {
    const seq = Number(params.get('seq') || 0)
    const started = Date.now()
    while (Date.now() - started < 30000) {
      await bsky.sub.processAll()
      if ((bsky.sub.getCursor() ?? 0) >= seq) return { cursor: bsky.sub.getCursor() }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error(`the AppView did not index the PDS's event ${seq} within 30 s`)
  }
  return bsky
}

async function main() {
  let server
  let extra = {}
  if (mode === 'appview') {
    installKillSwitch()
    server = await startAppview(...rest)
    extra = { did: server.serverDid }
  } else if (mode === 'plc') {
    server = await TestPlc.create({ port })
  } else if (mode === 'pds') {
    const [plcUrl, dataDir, appviewUrl, appviewDid] = rest
    fs.mkdirSync(path.join(dataDir, 'data'), { recursive: true })
    fs.mkdirSync(path.join(dataDir, 'blobs'), { recursive: true })
    installKillSwitch()
    server = await TestPds.create({
      port,
      didPlcUrl: plcUrl,
      dataDirectory: path.join(dataDir, 'data'),
      blobstoreDiskLocation: path.join(dataDir, 'blobs'),
      ...(await pdsKeys(dataDir)),
      ...(appviewUrl ? { bskyAppViewUrl: appviewUrl, bskyAppViewDid: appviewDid } : {}),
    })
    mockNetworkUtilities(server)
    testRoutes['/_test/seq'] = async () => ({ seq: (await server.ctx.sequencer.curr()) ?? 0 })
  } else {
    throw new Error(`unknown part ${mode}: plc, pds or appview`)
  }
  const stop = async () => {
    await server.close()
    process.exit(0)
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  process.stdout.write(JSON.stringify({ url: server.url, ...extra }) + '\n')
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
