// Launches Debian's Chromium through playwright-core with the flags this project's machines need
// (TOOLCHAIN.md): without the networking ones Chromium floods a closed network with connection
// attempts. Playwright gives every launch a fresh, empty profile directory of its own.
import { chromium } from 'playwright-core';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launchChromium() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ARGS });
}
