import { Controller, Get, INestApplication, Module, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import * as dto from './index';

/** Routes that take the query DTOs, so that their properties are documented as query parameters. */
@Controller()
class QueryRoutes {
  @Get('history')
  history(@Query() _query: dto.HistoryQueryDto): void {
    return undefined;
  }

  @Get('files')
  files(@Query() _query: dto.ListStoredFilesQueryDto): void {
    return undefined;
  }

  @Get('models')
  models(@Query() _query: dto.ModelListQueryDto): void {
    return undefined;
  }
}

@Module({ controllers: [QueryRoutes] })
class QueryRoutesModule {}

const dtoClasses = Object.values(dto).filter(
  (value): value is new () => object => typeof value === 'function' && value.name.endsWith('Dto'),
);

function unresolvedRefs(document: OpenAPIObject): string[] {
  const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
    (match) => match[1],
  );
  return [...new Set(refs)].filter((name) => !document.components?.schemas?.[name]);
}

describe('the OpenAPI document of the DTOs', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await NestFactory.create(QueryRoutesModule, { logger: false });
  });

  afterAll(() => app.close());

  const documentWith = (extraModels: Array<new () => object>) =>
    SwaggerModule.createDocument(app, new DocumentBuilder().build(), { extraModels });

  // Each class alone: a schema that only some other class happens to register would otherwise hide a broken $ref.
  it.each(dtoClasses.map((cls) => [cls.name, cls] as const))(
    '%s refers only to registered schemas and never to Object',
    (_name, cls) => {
      const document = documentWith([cls]);
      expect(unresolvedRefs(document)).toEqual([]);
      expect(document.components?.schemas).not.toHaveProperty('Object');
    },
  );

  it.each(['/history', '/files'])('documents page and limit of %s as bounded integers', (path) => {
    const parameters = documentWith([]).paths[path]?.get?.parameters ?? [];
    const schemaOf = (name: string) =>
      parameters.find((parameter) => 'name' in parameter && parameter.name === name);
    expect(schemaOf('page')).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: dto.MAX_PAGE, default: 1 },
    });
    expect(schemaOf('limit')).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: dto.MAX_PAGE_SIZE, default: 20 },
    });
  });

  it('documents the parameter descriptors of the catalogue as a registered schema', () => {
    const schemas = documentWith([dto.ModelListDto]).components?.schemas ?? {};
    expect(schemas['ModelCatalogueEntryDto']).toMatchObject({
      properties: {
        parameters: { additionalProperties: { $ref: '#/components/schemas/ParameterDescriptorDto' } },
      },
    });
    expect(schemas).toHaveProperty('ParameterDescriptorDto');
  });
});
