'use strict';
// Starts one real rate limiter from npm on 127.0.0.1 for Headway's interop suite.
//
//   node servers.js <server> <limit> <windowMs>
//
// <server> is one of the names in SERVERS below. The limiter allows <limit> requests per
// <windowMs> (for the token buckets: a burst of <limit>, refilled at <limit> per <windowMs>).
// Prints one line of JSON on stdout once listening: {"port": P, "control": C, "version": V}. Port P serves
// GET /work through the limiter. Port C, outside the limiter, serves
//   POST /reset   forget the log (the run starts now)
//   GET  /log     {"log": [[ms since reset, status], ...]}: every request that reached port P,
//                 counted at the HTTP server itself, before the framework sees it
// Ends when its standard input closes (the test's JVM went away) or on SIGTERM.

const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const [, , name, limitArg, windowArg] = process.argv;
const limit = Number(limitArg);
const windowMs = Number(windowArg);
if (!name || !(limit > 0) || !(windowMs > 0)) {
  console.error('usage: node servers.js <server> <limit> <windowMs>');
  process.exit(2);
}

let t0 = performance.now();
let log = [];

/** Counts every request the limited server receives, with the status it was answered. */
function count(server) {
  server.prependListener('request', (req, res) => {
    const at = Math.round(performance.now() - t0);
    res.once('close', () => log.push([at, res.writableFinished ? res.statusCode : 0]));
  });
  return server;
}

const BODY = { ok: true };

/** "name version" of each npm package, as installed (npm ci from package-lock.json). */
function versions(...packages) {
  return packages.map((p) => {
    const file = path.join(__dirname, 'node_modules', p, 'package.json');
    return `${p} ${JSON.parse(fs.readFileSync(file, 'utf8')).version}`;
  }).join(', ');
}

const SERVERS = {
  // express-rate-limit, legacy X-RateLimit-Limit/-Remaining/-Reset (epoch seconds) and
  // Retry-After on the 429.
  'express-legacy': () => express({ standardHeaders: false, legacyHeaders: true }),
  // express-rate-limit, draft-7: RateLimit: limit=, remaining=, reset= and RateLimit-Policy.
  'express-draft7': () => express({ standardHeaders: 'draft-7', legacyHeaders: false }),
  // express-rate-limit, draft-8: RateLimit: "name";r=;t= and RateLimit-Policy: "name";q=;w=.
  'express-draft8': () => express({ standardHeaders: 'draft-8', legacyHeaders: false }),
  // @fastify/rate-limit with its default headers: x-ratelimit-limit/-remaining/-reset (delta
  // seconds) on every response, retry-after on the 429.
  'fastify': () => fastify(true),
  // @fastify/rate-limit with the headers off: only retry-after on the 429.
  'fastify-retry-after-only': () => fastify(false),
  // koa-ratelimit, memory driver: X-RateLimit-Limit/-Remaining/-Reset (epoch seconds),
  // Retry-After on the 429.
  'koa': () => koa(),
  // express-throttle: a token bucket (burst <limit>, <limit> per window), a bare 429.
  'express-throttle': () => expressThrottle(),
  // hapi-rate-limit: X-RateLimit-UserLimit/-UserRemaining/-UserReset (epoch ms), no Retry-After.
  'hapi': () => hapi(),
  // @nestjs/throttler's ThrottlerGuard on NestJS (Express): X-RateLimit-Limit/-Remaining/-Reset
  // on the 200s (the reset: seconds to the expiry of the tracker), only Retry-After on the 429.
  'nestjs': () => nest(),
};

const PACKAGES = {
  'express-legacy': ['express-rate-limit', 'express'],
  'express-draft7': ['express-rate-limit', 'express'],
  'express-draft8': ['express-rate-limit', 'express'],
  'fastify': ['@fastify/rate-limit', 'fastify'],
  'fastify-retry-after-only': ['@fastify/rate-limit', 'fastify'],
  'koa': ['koa-ratelimit', 'koa'],
  'express-throttle': ['express-throttle', 'express'],
  'hapi': ['hapi-rate-limit', '@hapi/hapi'],
  'nestjs': ['@nestjs/throttler', '@nestjs/core'],
};

async function express(headers) {
  const express = require('express');
  const { rateLimit } = require('express-rate-limit');
  const app = express();
  app.use(rateLimit({ windowMs, limit, ...headers }));
  app.get('/work', (req, res) => res.json(BODY));
  return listen(count(http.createServer(app)));
}

async function fastify(headers) {
  const app = require('fastify')();
  const off = {
    'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false,
  };
  await app.register(require('@fastify/rate-limit'), {
    max: limit,
    timeWindow: windowMs,
    ...(headers ? {} : { addHeadersOnExceeding: off, addHeaders: { ...off, 'retry-after': true } }),
  });
  app.get('/work', async () => BODY);
  count(app.server);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app.server.address().port;
}

async function koa() {
  const Koa = require('koa');
  const ratelimit = require('koa-ratelimit');
  const app = new Koa();
  app.use(ratelimit({
    driver: 'memory', db: new Map(), duration: windowMs, max: limit, id: (ctx) => ctx.ip,
  }));
  app.use((ctx) => {
    if (ctx.path === '/work') {
      ctx.body = BODY;
    }
  });
  return listen(count(http.createServer(app.callback())));
}

async function expressThrottle() {
  const express = require('express');
  const throttle = require('express-throttle');
  const app = express();
  app.use(throttle({ burst: limit, rate: `${limit}/${windowMs}ms` }));
  app.get('/work', (req, res) => res.json(BODY));
  return listen(count(http.createServer(app)));
}

async function hapi() {
  const Hapi = require('@hapi/hapi');
  const server = Hapi.server({ port: 0, host: '127.0.0.1' });
  await server.register({
    plugin: require('hapi-rate-limit'),
    options: {
      userLimit: limit,
      userCache: { expiresIn: windowMs },
      pathLimit: false,
      userPathLimit: false,
      authLimit: false,
    },
  });
  server.route({ method: 'GET', path: '/work', handler: () => BODY });
  count(server.listener);
  await server.start();
  return server.info.port;
}

async function nest() {
  require('reflect-metadata');
  const { Controller, Get, Module } = require('@nestjs/common');
  const { APP_GUARD, NestFactory } = require('@nestjs/core');
  const { ThrottlerGuard, ThrottlerModule } = require('@nestjs/throttler');
  // Plain JavaScript: the decorators a TypeScript app writes, applied by hand.
  class WorkController {
    work() {
      return BODY;
    }
  }
  Controller()(WorkController);
  Get('work')(WorkController.prototype, 'work',
    Object.getOwnPropertyDescriptor(WorkController.prototype, 'work'));
  class AppModule {}
  Module({
    imports: [ThrottlerModule.forRoot({ throttlers: [{ ttl: windowMs, limit }] })],
    controllers: [WorkController],
    providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
  })(AppModule);
  const app = await NestFactory.create(AppModule, { logger: ['error'] });
  count(app.getHttpServer());
  await app.listen(0, '127.0.0.1');
  return app.getHttpServer().address().port;
}

function listen(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server.address().port));
  });
}

function control() {
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/reset') {
      t0 = performance.now();
      log = [];
      res.end('{}');
    } else if (req.method === 'GET' && req.url === '/log') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ log }));
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  return listen(server);
}

async function main() {
  const start = SERVERS[name];
  if (!start) {
    console.error(`unknown server ${name}; known: ${Object.keys(SERVERS).join(', ')}`);
    process.exit(2);
  }
  const port = await start();
  const controlPort = await control();
  const version = versions(...PACKAGES[name]);
  process.stdout.write(JSON.stringify({ port, control: controlPort, version }) + '\n');
}

process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
