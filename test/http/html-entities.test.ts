import { describe, expect, it } from 'vitest';
import { serviceMessage } from '../../src/http/errors.js';

// Regression: an HTML error page's named entities were looked up in a plain object (case folded), so
// `&constructor;` became the text of a function.

describe('serviceMessage: entities of an HTML error page', () => {
  it.each([
    ['<html><title>Bad &constructor; gateway</title></html>', 'Bad &constructor; gateway'],
    ['<html><h1>&CONSTRUCTOR;&AMP;&constructor</h1></html>', '&CONSTRUCTOR;&&constructor'],
  ])('%j reads %j', (body, expected) => expect(serviceMessage(body)).toBe(expected));
});
