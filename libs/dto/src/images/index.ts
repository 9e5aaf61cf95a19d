export * from './image-generation.dto';
