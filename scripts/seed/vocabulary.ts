// Words the seed builds plugins from. Plugins here extend a game launcher, so names
// and tags are what such a store holds: maps, chat, performance, skins, servers...
// Tags: a vocabulary of a few hundred, listed roughly from common to rare (the seed
// draws them with a Zipf law, so the first ones are on many plugins).

export const TAGS: readonly string[] = [
  'tools', 'ui', 'performance', 'utility', 'chat', 'map', 'minimap', 'hud', 'inventory', 'multiplayer',
  'server', 'skins', 'shaders', 'audio', 'music', 'screenshots', 'backup', 'mods', 'modpacks', 'launcher',
  'themes', 'fonts', 'accessibility', 'keybinds', 'controller', 'recording', 'streaming', 'discord', 'friends', 'social',
  'statistics', 'achievements', 'notifications', 'updates', 'downloads', 'java', 'memory', 'fps', 'graphics', 'lighting',
  'textures', 'resourcepacks', 'datapacks', 'worlds', 'building', 'redstone', 'automation', 'farming', 'mining', 'combat',
  'pvp', 'pve', 'survival', 'creative', 'adventure', 'hardcore', 'speedrun', 'timer', 'waypoints', 'compass',
  'coordinates', 'zoom', 'camera', 'replay', 'cinematic', 'weather', 'time', 'clock', 'calendar', 'events',
  'localization', 'translation', 'chinese', 'japanese', 'korean', 'english', 'russian', 'spanish', 'german', 'french',
  'security', 'privacy', 'authentication', 'accounts', 'profiles', 'cloud', 'sync', 'storage', 'logs', 'debugging',
  'developer', 'api', 'scripting', 'lua', 'javascript', 'python', 'kotlin', 'automation-tools', 'macros', 'shortcuts',
  'search', 'filters', 'sorting', 'bookmarks', 'history', 'notes', 'wiki', 'guides', 'tutorials', 'help',
  'economy', 'trading', 'shops', 'auction', 'currency', 'quests', 'rpg', 'classes', 'skills', 'magic',
  'tech', 'machines', 'energy', 'power', 'storage-systems', 'logistics', 'transport', 'trains', 'vehicles', 'boats',
  'animals', 'pets', 'mobs', 'bosses', 'dungeons', 'structures', 'biomes', 'terrain', 'caves', 'ocean',
  'nether', 'end', 'dimensions', 'space', 'planets', 'decoration', 'furniture', 'blocks', 'items', 'food',
  'cooking', 'potions', 'enchanting', 'armor', 'weapons', 'tools-and-weapons', 'crafting', 'recipes', 'jei', 'tooltips',
  'health', 'hunger', 'damage', 'indicators', 'overlay', 'crosshair', 'particles', 'animations', 'models', 'cosmetics',
  'capes', 'emotes', 'voice', 'proximity-chat', 'mentions', 'emoji', 'stickers', 'markdown', 'links', 'clipboard',
  'file-manager', 'import', 'export', 'migration', 'cleanup', 'cache', 'startup', 'boot', 'crash', 'crash-reports',
  'diagnostics', 'benchmark', 'profiler', 'network', 'ping', 'latency', 'proxy', 'vpn', 'mirror', 'cdn',
  'download-manager', 'torrent', 'versions', 'snapshots', 'beta', 'legacy', 'compatibility', 'fabric', 'forge', 'quilt',
  'neoforge', 'optifine', 'sodium', 'iris', 'vanilla', 'bedrock', 'education', 'kids', 'parental-controls', 'family',
  'dark-mode', 'light-mode', 'colors', 'icons', 'wallpapers', 'backgrounds', 'sounds', 'volume', 'equalizer', 'radio',
  'playlist', 'lyrics', 'news', 'rss', 'feeds', 'announcements', 'tips', 'onboarding', 'welcome', 'tutorial-mode',
  'server-list', 'server-status', 'whitelist', 'moderation', 'anti-cheat', 'permissions', 'roles', 'ranks', 'teams', 'guilds',
  'minigames', 'parkour', 'bedwars', 'skywars', 'skyblock', 'prison', 'factions', 'towny', 'land-claims', 'protection',
  'grief-prevention', 'rollback', 'world-edit', 'schematics', 'blueprints', 'litematica', 'printing', 'export-images', 'maps-art', 'pixel-art',
  'hotkeys', 'gestures', 'touch', 'gamepad', 'steam-deck', 'linux', 'macos', 'windows', 'portable', 'offline',
  'low-end', 'battery', 'laptop', 'multi-monitor', 'fullscreen', 'window', 'borderless', 'resolution', 'scaling', 'hdr',
];

/** First words of plugin names. */
export const NAME_PREFIXES: readonly string[] = [
  'Better', 'Simple', 'Quick', 'Smart', 'Advanced', 'Mini', 'Super', 'Easy', 'Auto', 'Pro',
  'Tiny', 'Ultra', 'Just', 'Clean', 'Lite', 'Fast', 'Cozy', 'Open', 'Neo', 'Hyper',
  'Modern', 'Classic', 'Extra', 'Perfect', 'Magic', 'Sky', 'Star', 'Pixel', 'Blocky', 'Crystal',
  'Shadow', 'Sunny', 'Lazy', 'Handy', 'Tidy', 'Silent', 'Bright', 'Swift', 'Iron', 'Golden',
];

/** Plugin subjects, each with the tags it naturally carries. */
export const NAME_NOUNS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['Minimap', ['minimap', 'map']], ['Map', ['map']], ['Chat', ['chat', 'social']], ['Inventory', ['inventory']],
  ['Backup', ['backup', 'storage']], ['Screenshot', ['screenshots']], ['Launcher Tweaks', ['launcher', 'ui']],
  ['Skin Manager', ['skins']], ['Mod Manager', ['mods', 'modpacks']], ['Shader Loader', ['shaders', 'graphics']],
  ['FPS Boost', ['performance', 'fps']], ['Memory Cleaner', ['memory', 'performance']], ['Zoom', ['zoom', 'camera']],
  ['Waypoints', ['waypoints', 'map']], ['Compass', ['compass']], ['Coordinates', ['coordinates', 'hud']],
  ['HUD', ['hud', 'ui']], ['Status Bar', ['hud', 'ui']], ['Keybinds', ['keybinds', 'controller']],
  ['Music Player', ['music', 'audio']], ['Sound Mixer', ['audio', 'volume']], ['Recorder', ['recording']],
  ['Stream Kit', ['streaming']], ['Discord Link', ['discord', 'social']], ['Friends', ['friends', 'social']],
  ['Stats', ['statistics']], ['Achievements', ['achievements']], ['Notifier', ['notifications']],
  ['Updater', ['updates']], ['Downloader', ['downloads', 'download-manager']], ['Java Finder', ['java']],
  ['Lighting', ['lighting', 'graphics']], ['Textures', ['textures', 'resourcepacks']], ['World Manager', ['worlds']],
  ['Builder', ['building']], ['Redstone Helper', ['redstone']], ['Farm Tools', ['farming', 'automation']],
  ['Combat Tweaks', ['combat', 'pvp']], ['Timer', ['timer', 'speedrun']], ['Weather', ['weather']],
  ['Clock', ['clock', 'time']], ['Translator', ['translation', 'localization']], ['Account Switcher', ['accounts', 'profiles']],
  ['Cloud Sync', ['cloud', 'sync']], ['Log Viewer', ['logs', 'debugging']], ['Script Engine', ['scripting', 'developer']],
  ['Macros', ['macros', 'shortcuts']], ['Search', ['search']], ['Bookmarks', ['bookmarks']], ['Notes', ['notes']],
  ['Wiki', ['wiki', 'guides']], ['Shop', ['shops', 'economy']], ['Quests', ['quests', 'rpg']], ['Skills', ['skills', 'rpg']],
  ['Machines', ['machines', 'tech']], ['Trains', ['trains', 'transport']], ['Pets', ['pets', 'animals']],
  ['Dungeons', ['dungeons', 'structures']], ['Biomes', ['biomes', 'terrain']], ['Furniture', ['furniture', 'decoration']],
  ['Recipes', ['recipes', 'crafting']], ['Tooltips', ['tooltips', 'ui']], ['Damage Indicators', ['damage', 'indicators']],
  ['Crosshair', ['crosshair', 'hud']], ['Particles', ['particles', 'graphics']], ['Emotes', ['emotes', 'cosmetics']],
  ['Voice Chat', ['voice', 'proximity-chat']], ['Emoji', ['emoji', 'chat']], ['File Manager', ['file-manager']],
  ['Crash Helper', ['crash', 'crash-reports']], ['Profiler', ['profiler', 'benchmark']], ['Ping Display', ['ping', 'network']],
  ['Mirror Selector', ['mirror', 'downloads']], ['Version Switcher', ['versions', 'compatibility']],
  ['Dark Theme', ['dark-mode', 'themes']], ['Icon Pack', ['icons', 'themes']], ['Wallpapers', ['wallpapers', 'backgrounds']],
  ['News Feed', ['news', 'feeds']], ['Tips', ['tips', 'onboarding']], ['Server List', ['server-list', 'multiplayer']],
  ['Server Status', ['server-status', 'server']], ['Moderation', ['moderation', 'server']], ['Teams', ['teams', 'multiplayer']],
  ['Minigames', ['minigames', 'multiplayer']], ['Parkour', ['parkour', 'minigames']], ['Land Claims', ['land-claims', 'protection']],
  ['Schematics', ['schematics', 'building']], ['Pixel Art', ['pixel-art', 'maps-art']], ['Hotkeys', ['hotkeys', 'keybinds']],
  ['Gamepad Support', ['gamepad', 'controller']], ['Window Manager', ['window', 'fullscreen']], ['Offline Mode', ['offline']],
];

export const NAME_SUFFIXES: readonly string[] = ['Plus', 'Pro', 'Lite', 'Tools', 'Helper', 'Kit', 'X', 'Reborn', 'Classic', 'Next'];

export const PERMISSIONS: readonly string[] = [
  'network', 'filesystem.read', 'filesystem.write', 'clipboard', 'notifications', 'launcher.settings', 'launcher.accounts',
  'process.spawn', 'game.directory', 'screenshots', 'microphone', 'discord.rpc', 'system.info', 'autostart',
];

export const FIRST_NAMES: readonly string[] = [
  'Alex', 'Sam', 'Jordan', 'Taylor', 'Morgan', 'Riley', 'Casey', 'Jamie', 'Chris', 'Robin',
  'Wei', 'Li', 'Hao', 'Yu', 'Min', 'Jun', 'Yuki', 'Haruto', 'Sora', 'Ren',
  'Ivan', 'Olga', 'Nikita', 'Anya', 'Lukas', 'Emma', 'Noah', 'Mia', 'Leon', 'Hannah',
  'Mateo', 'Lucia', 'Diego', 'Sofia', 'Omar', 'Layla', 'Arjun', 'Priya', 'Kofi', 'Ama',
];

export const LAST_NAMES: readonly string[] = [
  'Kim', 'Lee', 'Park', 'Chen', 'Wang', 'Zhang', 'Liu', 'Tanaka', 'Sato', 'Suzuki',
  'Smith', 'Jones', 'Brown', 'Miller', 'Davis', 'Garcia', 'Martinez', 'Lopez', 'Muller', 'Schmidt',
  'Ivanov', 'Petrova', 'Novak', 'Kowalski', 'Rossi', 'Bianchi', 'Dubois', 'Moreau', 'Silva', 'Santos',
];

/** Words for player handles: "swift_fox42", "PixelMiner". */
export const HANDLE_WORDS: readonly string[] = [
  'fox', 'wolf', 'miner', 'builder', 'creeper', 'pixel', 'block', 'diamond', 'emerald', 'ender',
  'sky', 'storm', 'shadow', 'blaze', 'frost', 'ninja', 'knight', 'wizard', 'panda', 'tiger',
  'swift', 'lucky', 'crafty', 'sleepy', 'brave', 'tiny', 'mega', 'cosmic', 'neon', 'retro',
];

/** Short-description sentences; `{}` is the plugin's main topic ("minimap", "chat"). */
export const DESCRIPTION_SENTENCES: readonly string[] = [
  'adds {} controls to the launcher.',
  'makes {} easier to use, right from the launcher.',
  'gives you full control over {}.',
  'brings better {} to your game.',
  'is a small, fast take on {}.',
  'puts everything about {} in one place.',
  'lets you customise {} the way you like.',
  'improves {} without changing how the game plays.',
];

export const DESCRIPTION_BENEFITS: readonly string[] = [
  'Lightweight and fast, with no impact on start-up time.',
  'Works out of the box; every option can be changed in the settings page.',
  'Fully translated into English, Chinese and Japanese.',
  'Designed for low-end machines and laptops on battery.',
  'Keeps your settings in sync across every installation.',
  'Open source and actively maintained.',
  'Compatible with the other popular plugins in the store.',
  'Includes sensible defaults and a one-click reset.',
];

export const FEATURE_LINES: readonly string[] = [
  'Configurable keyboard shortcuts for every action',
  'A compact mode for small screens',
  'Automatic updates through the store',
  'Import and export of your settings as a file',
  'Dark and light themes that follow the launcher',
  'Per-profile settings',
  'Detailed logs for troubleshooting',
  'Support for controllers and the Steam Deck',
  'Works offline',
  'Low memory use, even with hundreds of entries',
  'Accessible labels for screen readers',
  'An optional overlay while the game runs',
];

export const COMMENTS_BY_STARS: Readonly<Record<number, readonly string[]>> = {
  1: ['Crashes the launcher on start.', 'Does not work with the latest version.', 'Deleted my settings. Avoid.', 'Nothing happens after installing.'],
  2: ['Buggy, but the idea is good.', 'Too slow on my laptop.', 'Needs better documentation.', 'Works half of the time.'],
  3: ['It is fine. Does what it says.', 'OK, but the settings are confusing.', 'Decent, missing a few features.', 'Average. Could be faster.'],
  4: ['Really useful, a few rough edges.', 'Great plugin, would love more options.', 'Works well, setup took a minute.', 'Solid and fast.'],
  5: ['Perfect, exactly what I needed!', 'Best plugin in the store.', 'Flawless, thank you!', 'Use it every day, highly recommended.', '非常好用，推荐！', 'すごく便利です。'],
};

export const REPLIES: readonly string[] = [
  'Thanks for the feedback!',
  'Fixed in the next version, please update.',
  'Could you open an issue with your log file?',
  'Glad you like it!',
  'Which launcher version are you on?',
  'This should be solved now; let me know if it is not.',
];
