// The toolchain of the FMA build (relaxed-SIMD f32x4.relaxed_madd), made from what a Debian 12
// machine can install: Debian's Emscripten 3.1.6 drives Debian's clang 16 (its own LLVM 14 has no
// relaxed-SIMD opcodes), and npm's binaryen (devDependency) does em++'s post-link optimisation
// (Debian's Binaryen 108 rejects the opcode: "invalid code after SIMD prefix: 261").
// How each piece was found, and what failed: docs/fma-build.md.
//
// em++ 3.1.6 as Debian ships it runs Binaryen's tools by name from PATH (BINARYEN_ROOT is only
// checked for wasm-opt --version), so npm's bin/ goes first on PATH, behind scripts/fma-toolchain/:
//   wasm-opt                  npm's, with its import/export renames printed the way em++ 3.1.6 reads them
//   wasm-emscripten-finalize  a stand-in that fails with a clear message. npm's package has no finalize;
//                             em++ needs none when it reads the metadata in Python (EMCC_READ_METADATA=python)
//                             and has nothing to legalise (-sWASM_BIGINT, in CMakeLists.txt).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LLVM_VERSION = '16';
// What em++ runs with LLVM_ADD_VERSION / CLANG_ADD_VERSION = 16, and the Debian package of each.
const TOOLS = [
  ['clang++-16', 'clang-16'],
  ['wasm-ld-16', 'lld-16'],
  ['llvm-ar-16', 'llvm-16'],
  ['llvm-nm-16', 'llvm-16'],
];
const DEBIAN_EM_CONFIG = '/usr/share/emscripten/.emscripten';

const onPath = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0;

/**
 * Why the FMA build cannot be made here, or null when it can.
 * @param {string} root  the repository
 */
export function fmaMissing(root) {
  const version = spawnSync('em++', ['--version'], { encoding: 'utf8' });
  if (version.status !== 0) return 'em++ is not installed';
  const first = version.stdout.split('\n')[0];
  if (!/ 3\.1\.6 /.test(first)) return `this route is for Debian's Emscripten 3.1.6, not ${first}`;
  if (!existsSync(DEBIAN_EM_CONFIG)) return `${DEBIAN_EM_CONFIG} (Debian's Emscripten config) is missing`;
  const missing = [...new Set(TOOLS.filter(([command]) => !onPath(command)).map(([, pkg]) => pkg))].join(' ');
  if (missing) return `missing ${missing} (apt-get install -y ${missing})`;
  if (!existsSync(join(root, 'node_modules', 'binaryen', 'bin', 'wasm-opt'))) return 'npm binaryen is not installed (npm ci)';
  return null;
}

/**
 * Write the FMA build's Emscripten config into `dir`; return the environment em++ needs
 * (to be passed to every emcmake and cmake --build call).
 * @param {string} root  the repository
 * @param {string} dir   the FMA build directory
 * @param {NodeJS.ProcessEnv} env  the environment to extend
 */
export function fmaEnvironment(root, dir, env) {
  mkdirSync(dir, { recursive: true });
  const binaryen = join(root, 'node_modules', 'binaryen');
  // Debian's config with our LLVM and Binaryen: it keeps Debian's paths, cache and FROZEN_CACHE.
  const config = readFileSync(DEBIAN_EM_CONFIG, 'utf8')
    .replace(/^LLVM_ADD_VERSION = .*$/m, `LLVM_ADD_VERSION = '${LLVM_VERSION}'`)
    .replace(/^CLANG_ADD_VERSION = .*$/m, `CLANG_ADD_VERSION = '${LLVM_VERSION}'`)
    .replace(/^BINARYEN_ROOT = .*$/m, `BINARYEN_ROOT = ${JSON.stringify(binaryen)}`);
  if (!config.includes(`CLANG_ADD_VERSION = '${LLVM_VERSION}'`))
    throw new Error(`attention-lab: ${DEBIAN_EM_CONFIG} has no CLANG_ADD_VERSION line to change`);
  const configFile = join(dir, 'em-config.py');
  writeFileSync(configFile, config);
  return {
    ...env,
    EM_CONFIG: configFile,
    EMCC_READ_METADATA: 'python',
    PATH: [join(root, 'scripts', 'fma-toolchain'), join(binaryen, 'bin'), env.PATH].join(':'),
  };
}
