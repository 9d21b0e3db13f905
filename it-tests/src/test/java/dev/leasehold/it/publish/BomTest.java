package dev.leasehold.it.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * BomTest keeps leasehold-bom true: it lists every published module of the reactor (a module
 * that does not set {@code maven.deploy.skip}), nothing else, and carries the parent's version,
 * which it cannot inherit (the BOM has no parent on purpose).
 */
class BomTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void theBomListsExactlyThePublishedModulesAtTheParentsVersion() throws Exception {
    Document parent = read(ROOT.resolve("pom.xml"));
    Document bom = read(ROOT.resolve("bom/pom.xml"));
    assertEquals(text(parent.getDocumentElement(), "version"), text(bom.getDocumentElement(), "version"),
        "bom/pom.xml's <version> must equal the parent's");

    Set<String> published = new TreeSet<>();
    for (String module : children(child(parent.getDocumentElement(), "modules"), "module")) {
      Document pom = read(ROOT.resolve(module).resolve("pom.xml"));
      Element project = pom.getDocumentElement();
      String packaging = text(project, "packaging");
      Element props = child(project, "properties");
      boolean skipped = props != null && "true".equals(text(props, "maven.deploy.skip"));
      if (!skipped && !"leasehold-bom".equals(text(project, "artifactId"))) {
        assertTrue(packaging == null || !packaging.equals("pom") || module.equals("bom"),
            module + " is a pom module without maven.deploy.skip");
        published.add(text(project, "artifactId"));
      }
    }
    Set<String> listed = new TreeSet<>();
    Element managed = child(child(bom.getDocumentElement(), "dependencyManagement"), "dependencies");
    for (Element dep : elements(managed, "dependency")) {
      assertEquals("dev.leasehold", text(dep, "groupId"));
      assertEquals("${project.version}", text(dep, "version"), text(dep, "artifactId"));
      listed.add(text(dep, "artifactId"));
    }
    assertEquals(published, listed, "leasehold-bom must list every published module, and only those");
  }

  private static Document read(Path pom) throws Exception {
    assertTrue(Files.isRegularFile(pom), "missing " + pom);
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }

  private static Element child(Element parent, String name) {
    if (parent == null) {
      return null;
    }
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }

  private static List<Element> elements(Element parent, String name) {
    List<Element> out = new ArrayList<>();
    NodeList all = parent.getChildNodes();
    for (int i = 0; i < all.getLength(); i++) {
      if (all.item(i) instanceof Element e && e.getTagName().equals(name)) {
        out.add(e);
      }
    }
    return out;
  }

  private static List<String> children(Element parent, String name) {
    return elements(parent, name).stream().map(e -> e.getTextContent().trim()).toList();
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : e.getTextContent().trim();
  }
}
