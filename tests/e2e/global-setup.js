// Once per e2e run, before the first file: build what is stale and start one Chromium that every
// test file connects to (a launch per file cost about 2 s of the run's start-up each: the build
// checks, the browser's start and its first page). Test files read the two from the environment
// their workers inherit (ATTENTION_LAB_BUILT, ATTENTION_LAB_BROWSER: see browser.js).
import { chromium } from 'playwright-core';
import { BROWSER_ARGS, ensureBuilt } from './browser.js';

let server;

export async function setup() {
  ensureBuilt();
  process.env.ATTENTION_LAB_BUILT = '1';
  server = await chromium.launchServer({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: BROWSER_ARGS });
  process.env.ATTENTION_LAB_BROWSER = server.wsEndpoint();
}

export async function teardown() {
  delete process.env.ATTENTION_LAB_BROWSER;
  await server?.close();
}
