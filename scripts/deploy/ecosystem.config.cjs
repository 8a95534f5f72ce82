// pm2: `pm2 start scripts/deploy/ecosystem.config.cjs && pm2 save`.
// Environment comes from the process (or a .env file in the working directory,
// which both services read at start).
module.exports = {
  apps: [
    {
      name: 'launcher-site',
      script: 'dist/site.js',
      cwd: __dirname + '/../..',
      exec_mode: 'fork',
      instances: 1,
      // SIGTERM, then up to 10 s for requests in flight: give pm2 a bit more.
      kill_timeout: 15000,
      max_memory_restart: '512M',
      env: { NODE_ENV: 'production' },
    },
    {
      name: 'launcher-imghost',
      script: 'dist/imghost.js',
      cwd: __dirname + '/../..',
      exec_mode: 'fork',
      instances: 1,
      kill_timeout: 15000,
      max_memory_restart: '512M',
      env: { NODE_ENV: 'production' },
    },
  ],
};
