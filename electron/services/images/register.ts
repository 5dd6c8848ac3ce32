import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';

// PLACEHOLDER (issue 13, pull helper replaces it).
export function registerImages(context: ServiceContext): DomainModule<'images'> {
  void context;
  const notYet = async (): Promise<never> => {
    throw new AppError('INTERNAL', 'Image pulls are not built yet.');
  };
  return {
    handlers: {
      'images:pull': notYet,
      'images:cancel-pull': notYet,
      'images:pulls': async () => [],
    },
  };
}
