// d3-flame-graph ships no type declarations; the page uses only the builder API below.
declare module "d3-flame-graph" {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Chart = any;
  export default function flamegraph(): Chart;
  export const colorMapper: {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    differentialColorMapper: (d: any, originalColor: string) => string;
  };
}
