// tfjs-core's gradient functions: the package ships them only as extensionless ES modules
// (dist/register_all_gradients.js imports './gradients/Abs_grad'; './gradients' is gradients.js, beside a folder of that name), which Node does not resolve,
// and no bundle of tfjs-core includes them. A resolve hook adds the '.js'; the registry they fill
// is tfjs's global one, so the CommonJS tfjs-core the backends use sees them too.
import { register } from 'node:module';

const hooks = `
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    const missing = error?.code === 'ERR_MODULE_NOT_FOUND' || error?.code === 'ERR_UNSUPPORTED_DIR_IMPORT';
    if (!missing || !/^\\.\\.?\\//.test(specifier) || specifier.endsWith('.js')) throw error;
    return next(specifier + '.js', context);
  }
}`;

let loaded = null;
/** Registers every tfjs-core gradient (once). */
export function registerTfjsGradients() {
  loaded ??= (async () => {
    register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url);
    await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  })();
  return loaded;
}
