// pressroom's OAuth client as the reference authorization server judges it: reads
// {"metadata", "jwks", "loopback"} on stdin, prints {"metadata", "jwks", "loopback"} with
// null for each that passes, else the server's words. The metadata goes through
// @atproto/oauth-types' schema and @atproto/oauth-provider's own ClientManager checks
// (what a PDS runs on a fetched client metadata document), the keys through
// @atproto/jwk's public JWKS schema, the localhost client id through the loopback rules.
// It runs from the directory that holds its node_modules (the test copies it there).
import fs from 'node:fs'
import * as types from '@atproto/oauth-types'
import { jwksPubSchema } from '@atproto/jwk'

const dist = new URL('node_modules/@atproto/oauth-provider/dist/', `file://${process.cwd()}/`)
const { ClientManager } = await import(new URL('client/client-manager.js', dist))
const input = JSON.parse(fs.readFileSync(0, 'utf8'))

// The server's side of the checks: what an AT Protocol authorization server offers.
const manager = Object.create(ClientManager.prototype)
manager.serverMetadata = {
  issuer: 'https://bsky.social',
  scopes_supported: ['atproto', 'transition:generic'],
  response_types_supported: ['code'],
  grant_types_supported: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
  token_endpoint_auth_signing_alg_values_supported: ['ES256'],
  dpop_signing_alg_values_supported: ['ES256'],
  authorization_response_iss_parameter_supported: true,
  require_pushed_authorization_requests: true,
}

async function verdict(check) {
  try {
    await check()
    return null
  } catch (err) {
    return String(err?.message ?? err)
  }
}

const out = {
  metadata: await verdict(async () => {
    const parsed = await types.oauthClientMetadataSchema.parseAsync(input.metadata)
    if (!types.isOAuthClientIdDiscoverable(input.metadata.client_id)) {
      throw new Error('the client id is not a discoverable (https) client id')
    }
    manager.validateClientMetadata(input.metadata.client_id, parsed)
  }),
  jwks: await verdict(async () => jwksPubSchema.parse(input.jwks)),
  loopback: await verdict(async () => {
    const metadata = types.atprotoLoopbackClientMetadata(input.loopback)
    manager.validateClientMetadata(input.loopback, await types.oauthClientMetadataSchema.parseAsync(metadata))
  }),
}
process.stdout.write(JSON.stringify(out) + '\n')
