// A local AT Protocol network for pressroom's Bluesky tests, one part per process so
// the PDS can be killed and started again on its own data while the PLC directory
// (which keeps its operations in memory) lives on:
//
//   node network.mjs plc <port>
//   node network.mjs pds <port> <plcUrl> <dataDir>
//
// It runs from the directory that holds its node_modules (the fixture copies it there).
// Each prints one JSON line ({"url": ...}) once it answers, and stops on SIGTERM.
// The PDS also answers POST /_test/kill-after-next-write[?skip=N]: the next createRecord,
// putRecord or applyWrites (after N more that are answered as usual) is carried out and
// committed, then the process SIGKILLs itself before a byte of the answer leaves, which
// is what a crash between the write and the answer looks like to a client.
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { Secp256k1Keypair } from '@atproto/crypto'
// dev-env's index loads the AppView and Ozone too (8 s here): take only the parts used.
const devEnv = (file) => import(new URL(`node_modules/@atproto/dev-env/dist/${file}`, import.meta.url))
const { TestPds } = await devEnv('pds.js')
const { TestPlc } = await devEnv('plc.js')
const { mockNetworkUtilities } = await devEnv('util.js')
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

function installKillSwitch() {
  const emit = http.Server.prototype.emit
  http.Server.prototype.emit = function (event, req, res) {
    if (event === 'request') {
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

async function main() {
  let server
  if (mode === 'plc') {
    server = await TestPlc.create({ port })
  } else if (mode === 'pds') {
    const [plcUrl, dataDir] = rest
    fs.mkdirSync(path.join(dataDir, 'data'), { recursive: true })
    fs.mkdirSync(path.join(dataDir, 'blobs'), { recursive: true })
    installKillSwitch()
    server = await TestPds.create({
      port,
      didPlcUrl: plcUrl,
      dataDirectory: path.join(dataDir, 'data'),
      blobstoreDiskLocation: path.join(dataDir, 'blobs'),
      ...(await pdsKeys(dataDir)),
    })
    mockNetworkUtilities(server)
  } else {
    throw new Error(`unknown part ${mode}: plc or pds`)
  }
  const stop = async () => {
    await server.close()
    process.exit(0)
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  process.stdout.write(JSON.stringify({ url: server.url }) + '\n')
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
