import { expect } from 'vitest';

// JUnit XML as CI systems read it: a small strict parser (elements, attributes, text, the five
// entities) and the elements and attributes of the common JUnit schema (Jenkins' junit-10.xsd, which
// GitLab, GitHub's test reporters and Azure read), checked element by element.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decode = (text: string): string =>
  text.replace(/&(\w+);/g, (whole, name: string) => {
    const value = ENTITIES[name];
    if (value === undefined) throw new Error(`unknown entity ${whole}`);
    return value;
  });

export function parseXml(xml: string): XmlElement {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const tokens = body.match(/<[^>]+>|[^<]+/g) ?? [];
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  for (const token of tokens) {
    if (token.startsWith('</')) {
      const open = stack.pop();
      expect(open?.name, `closing ${token}`).toBe(token.slice(2, -1).trim());
      continue;
    }
    if (!token.startsWith('<')) {
      if (stack.length > 0) stack[stack.length - 1]!.text += decode(token);
      else expect(token.trim(), 'text outside the root').toBe('');
      continue;
    }
    const selfClosing = token.endsWith('/>');
    const inner = token.slice(1, selfClosing ? -2 : -1).trim();
    const name = /^[\w-]+/.exec(inner)![0];
    const attributes: Record<string, string> = {};
    const rest = inner.slice(name.length);
    for (const match of rest.matchAll(/\s*([\w-]+)="([^"<]*)"/g)) attributes[match[1]!] = decode(match[2]!);
    expect(rest.replace(/\s*([\w-]+)="([^"<]*)"/g, '').trim(), `attributes of <${name}>`).toBe('');
    const element: XmlElement = { name, attributes, children: [], text: '' };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(element);
    else {
      expect(root, 'one root element').toBeUndefined();
      root = element;
    }
    if (!selfClosing) stack.push(element);
  }
  expect(stack, 'every element closed').toEqual([]);
  return root!;
}

const SCHEMA: Record<string, { required: string[]; optional: string[]; children: string[] }> = {
  testsuites: { required: [], optional: ['name', 'time', 'tests', 'failures', 'errors', 'disabled'], children: ['testsuite'] },
  testsuite: {
    required: ['name', 'tests'],
    optional: ['failures', 'errors', 'skipped', 'time', 'disabled', 'timestamp', 'hostname', 'id', 'package'],
    children: ['properties', 'testcase', 'system-out', 'system-err'],
  },
  testcase: {
    required: ['name'],
    optional: ['classname', 'time', 'assertions', 'status'],
    children: ['skipped', 'error', 'failure', 'system-out', 'system-err'],
  },
  failure: { required: [], optional: ['message', 'type'], children: [] },
  error: { required: [], optional: ['message', 'type'], children: [] },
  skipped: { required: [], optional: ['message'], children: [] },
  'system-out': { required: [], optional: [], children: [] },
  'system-err': { required: [], optional: [], children: [] },
};

/** Every element and attribute is the schema's, required ones present, counts numeric and consistent. */
export function expectJUnit(root: XmlElement): void {
  expect(root.name).toBe('testsuites');
  const walk = (element: XmlElement): void => {
    const rule = SCHEMA[element.name];
    expect(rule, `<${element.name}> is not a JUnit element`).toBeDefined();
    for (const name of rule!.required) expect(element.attributes, `<${element.name}> needs ${name}`).toHaveProperty(name);
    for (const name of Object.keys(element.attributes))
      expect([...rule!.required, ...rule!.optional], `<${element.name} ${name}>`).toContain(name);
    for (const child of element.children) {
      expect(rule!.children, `<${child.name}> inside <${element.name}>`).toContain(child.name);
      walk(child);
    }
  };
  walk(root);
  for (const suite of root.children) {
    const cases = suite.children.filter((child) => child.name === 'testcase');
    const count = (name: string): number => cases.filter((each) => each.children.some((child) => child.name === name)).length;
    expect(Number(suite.attributes.tests)).toBe(cases.length);
    expect(Number(suite.attributes.failures)).toBe(count('failure'));
    expect(Number(suite.attributes.errors)).toBe(count('error'));
  }
}
