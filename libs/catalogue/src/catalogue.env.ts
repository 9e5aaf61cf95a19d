import { IsString, MinLength } from 'class-validator';
import { type EnvSchema } from '@gw/platform';

/** The model catalogue's file; the embedded mode reads it too and hands it on. */
export function WithCatalogueFile<Base extends EnvSchema>(base: Base) {
  class CatalogueFileEnv extends base {
    /** A relative path is resolved against the working directory. */
    @IsString()
    @MinLength(1)
    CATALOGUE_FILE: string = 'config/catalogue.demo.json';
  }
  return CatalogueFileEnv;
}

/** What a service that loads the catalogue reads: its file and the variables the demo catalogue names. */
export function WithCatalogue<Base extends EnvSchema>(base: Base) {
  class CatalogueEnv extends WithCatalogueFile(base) {
    /** Substituted for `${MOCK_UPSTREAM_URL}` in the catalogue's base URLs. */
    @IsString()
    MOCK_UPSTREAM_URL: string = 'http://127.0.0.1:4010';

    /** The key the demo catalogue sends to mock-upstream (it checks only that one is sent). */
    @IsString()
    MOCK_UPSTREAM_API_KEY: string = 'mock-upstream-key';
  }
  return CatalogueEnv;
}
