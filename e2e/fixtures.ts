// The DAG the console tests run, and the line its step prints.

export const HELLO_DAG_NAME = 'hello';
export const HELLO_LINE = 'hello from the dagu e2e test';

export const HELLO_DAG = `description: Prints a known line
steps:
  - name: greet
    command: echo "${HELLO_LINE}"
`;
